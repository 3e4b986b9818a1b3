// SPDX-License-Identifier: GPL-2.0
/*
 * rift-peer: a hostile Rift client in user space.
 *
 * Connects to a kernel Rift server (rift-server.ko serving the test ULP,
 * rift-test-srv.ko) over rdma_cm and breaks the wire protocol on
 * purpose, one case at a time.  Every case asserts the server's exact
 * answer: the reason code of a REJECT, the status of an INFO_RSP, the
 * errno in an IO response, the sequence number echoed by HB_ACK, or the
 * server closing the connection on its own within the time limit.
 *
 * Messages are built and parsed with Rift's own codec (rift/rift-proto.c,
 * compiled here against the shim headers of tools/unit), so the peer
 * cannot drift from Documentation/rift-protocol.rst; the hostile cases
 * start from a valid encoding and break its bytes afterwards.
 *
 * This file is the driver: the case table, the options and main().  The
 * cases are in peer-con.c (a session being set up: CON_REQ and CON_RSP,
 * the INFO exchange, host admission and authentication), peer-io.c
 * (heartbeats and IO on a session that is up), peer-credit.c (memory
 * credits) and peer-rinv.c (remote invalidation), declared in rift-peer.h;
 * the protocol helpers they are built from are in peer-lib.c, the verbs
 * glue in peer-rdma.c.
 *
 * usage: rift-peer [-s SRC] [-d DST] [-p PORT] [-t MS] [-F N] [-L SECS] [-C N] [CASE...]
 *        rift-peer -B -D DEV [-X DEV:DEV_ID] [-R FILE] [-N N] [...] [CASE...]
 *        rift-peer [-B] -l
 *
 *   -s, -d   client and server IPv4 addresses (198.18.0.2, 198.18.0.1)
 *   -p       server port (7674)
 *   -t       limit of every single wait, in ms (10000)
 *   -C       cycles of the (manual) session_churn case (300)
 *   -F, -L   CONNECT_REQUESTs of the (manual) flood case (1000), and
 *            seconds it goes on at least (0)
 *   -l       list the cases
 *   -B       the riftblk cases instead (peer-blk.c), against riftblk-server
 *            (port 7675); -D, -X, -R and -N are theirs
 *
 * Runs the named cases, or all of them, and prints KTAP: one line per
 * case, diagnostics as "# case: ..." lines.  Exits 1 if any case
 * failed, 2 on a usage error.  Built and run by
 * selftests/hostile_peer.sh.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rift-peer.h"

/* The options of rift-peer.h the cases are told, with their defaults. */
unsigned int flood_n = 1000;
unsigned int flood_secs;
unsigned int churn_n = 300;
struct peer_victim victim;

/* UUID:NAME:HOST, the UUID as /sys/class/rift-server/<s>/uuid shows it. */
static bool victim_parse(const char *arg)
{
	const char *p = arg, *n, *h;
	unsigned int v, i = 0;

	while (i < RIFT_UUID_LEN && *p && *p != ':') {
		if (*p == '-') {
			p++;
			continue;
		}
		if (sscanf(p, "%2x", &v) != 1)
			return false;
		victim.uuid[i++] = (u8)v;
		p += 2;
	}
	n = strchr(p, ':');
	h = n ? strchr(n + 1, ':') : NULL;
	if (i != RIFT_UUID_LEN || !n || !h || h - n - 1 > RIFT_NAME_MAX ||
	    strlen(h + 1) > RIFT_NAME_MAX)
		return false;
	memcpy(victim.name, n + 1, h - n - 1);
	victim.name[h - n - 1] = '\0';
	strcpy(victim.host, h + 1);
	victim.set = true;
	return true;
}

/* ------------------------------------------------------------------ */
/* Driver                                                              */
/* ------------------------------------------------------------------ */

/* Table entries: a case, a variant of a shared case. */
#define CASE(n, fn)		{ .name = n, .run = fn }
#define VARIANT(n, fn, a)	{ .name = n, .run = fn, .arg = a }
/* Run only when named: they need what an option gives them. */
#define MANUAL(n, fn, a)	{ .name = n, .run = fn, .arg = a, .manual = true }

static const struct peer_case cases[] = {
	CASE("con_req_empty",			case_con_req_empty),
	CASE("con_req_garbage",			case_con_req_garbage),
	VARIANT("con_req_bad_magic",		case_con_req_bad, CON_REQ_BAD_MAGIC),
	VARIANT("con_req_zero_sess_uuid",	case_con_req_bad, CON_REQ_ZERO_SESS_UUID),
	VARIANT("con_req_zero_path_uuid",	case_con_req_bad, CON_REQ_ZERO_PATH_UUID),
	VARIANT("con_req_idx_out_of_range",	case_con_req_bad, CON_REQ_IDX_RANGE),
	VARIANT("con_req_too_many_cons",	case_con_req_bad, CON_REQ_TOO_MANY_CONS),
	VARIANT("con_req_zero_queue_depth",	case_con_req_bad, CON_REQ_ZERO_QD),
	VARIANT("con_req_queue_depth_range",	case_con_req_bad, CON_REQ_QD_RANGE),
	CASE("con_req_version",			case_con_req_version),
	CASE("con_req_join_unknown",		case_con_req_join_unknown),
	VARIANT("con_duplicate",		case_con_second, CON_DUPLICATE),
	VARIANT("con_cnt_mismatch",		case_con_second, CON_CNT_MISMATCH),
	CASE("con_stale_gen",			case_con_stale_gen),
	VARIANT("con_queue_depth_mismatch",	case_con_second, CON_QD_MISMATCH),
	CASE("con_newer_gen_replaces",		case_con_newer_gen),
	CASE("con_newer_gen_on_live_path",	case_con_reconnect),
	CASE("con_queue_depth_clamped",		case_con_qd_clamped),
	VARIANT("host_unknown",			case_host_refused, HOST_UNKNOWN),
	VARIANT("host_auth_no_proof",		case_host_refused, HOST_AUTH_NO_PROOF),
	VARIANT("host_auth_bad_proof",		case_host_refused, HOST_AUTH_BAD_PROOF),
	CASE("join_other_host",			case_join_other_host),
	CASE("join_high_gen_no_lockout",	case_join_high_gen),
	MANUAL("flood",				case_flood, 0),
	MANUAL("foreign_join",			case_foreign_join, 0),
	MANUAL("session_churn",			case_session_churn, 0),
	MANUAL("foreign_join_bad_proof",	case_foreign_join, 1),
	CASE("msg_before_info",			case_msg_before_info),
	VARIANT("info_garbage",			case_info_bad, INFO_GARBAGE),
	VARIANT("info_critical_tlv",		case_info_bad, INFO_CRITICAL_TLV),
	VARIANT("info_bad_name",		case_info_bad, INFO_BAD_NAME),
	VARIANT("info_no_name",			case_info_bad, INFO_NO_NAME),
	VARIANT("info_wrong_version",		case_info_bad, INFO_WRONG_VERSION),
	VARIANT("info_total_len",		case_info_bad, INFO_TOTAL_LEN),
	VARIANT("info_max_len",			case_info_size, INFO_MAX_LEN),
	VARIANT("info_oversized",		case_info_size, INFO_OVERSIZED),
	CASE("info_waits_for_all_cons",		case_info_waits_for_all_cons),
	VARIANT("name_clash",			case_session_name, NAME_CLASH),
	VARIANT("name_mismatch",		case_session_name, NAME_MISMATCH),
	VARIANT("path_same_addresses",		case_session_name, PATH_SAME_ADDR),
	VARIANT("second_path_joins",		case_session_name, PATH_JOIN),
	CASE("hb_echo",				case_hb_echo),
	CASE("hb_ack_unsolicited",		case_hb_ack_unsolicited),
	CASE("ulp_error_chunk_reused",		case_ulp_error),
	CASE("write_read",			case_write_read),
	CASE("all_chunks_in_flight",		case_all_chunks_in_flight),
	CASE("abort_with_requests",		case_abort_with_requests),
	CASE("chunk_reuse_ai",			case_chunk_reuse_ai),
	VARIANT("cancel_stale_gen",		case_cancel_stale, CANCEL_WITH_GEN),
	VARIANT("cancel_stale_legacy",		case_cancel_stale, CANCEL_LEGACY),
	VARIANT("rsp_gen_echo",			case_rsp_gen, RSP_GEN_ECHO),
	VARIANT("rsp_gen_off",			case_rsp_gen, RSP_GEN_OFF),
	VARIANT("desc_off_mismatch",		case_bad_desc, DESC_OFF_MISMATCH),
	VARIANT("desc_bad_magic",		case_bad_desc, DESC_BAD_MAGIC),
	VARIANT("desc_dir_mismatch",		case_bad_desc, DESC_DIR_MISMATCH),
	VARIANT("desc_chunk_mismatch",		case_bad_desc, DESC_CHUNK_MISMATCH),
	VARIANT("desc_flags",			case_bad_desc, DESC_FLAGS),
	VARIANT("desc_usr_overlap",		case_bad_desc, DESC_USR_OVERLAP),
	VARIANT("desc_data_len",		case_bad_desc, DESC_DATA_LEN),
	VARIANT("desc_beyond_chunk",		case_bad_desc, DESC_BEYOND_CHUNK),
	VARIANT("desc_seg_wrap",		case_bad_desc, DESC_SEG_WRAP),
	VARIANT("desc_seg_sum",			case_bad_desc, DESC_SEG_SUM),
	VARIANT("imm_zero",			case_bad_imm, IMM_ZERO),
	VARIANT("imm_reserved_type",		case_bad_imm, IMM_RESERVED_TYPE),
	VARIANT("imm_server_type",		case_bad_imm, IMM_SERVER_TYPE),
	VARIANT("imm_chunk_out_of_range",	case_bad_imm, IMM_CHUNK_RANGE),
	VARIANT("imm_hb_with_chunk",		case_bad_imm, IMM_HB_CHUNK),
	CASE("send_without_imm",		case_send_without_imm),
	CASE("write_bad_rkey",			case_write_bad_rkey),
	CASE("read_bad_rkey",			case_read_bad_rkey),
	CASE("cross_session_rkey",		case_cross_session_rkey),
	CASE("ai_read_open",			case_ai_read_open),
	CASE("rinv_write",			case_rinv_write),
	CASE("rinv_write_imm",			case_rinv_write_imm),
	CASE("rinv_wrong_key",			case_rinv_wrong_key),
	CASE("rinv_bad_payload",		case_rinv_bad_payload),
	CASE("rinv_unnegotiated",		case_rinv_unnegotiated),
	CASE("rinv_no_ai",			case_rinv_no_ai),
	CASE("rinv_not_without_ai",		case_rinv_not_without_ai),
	CASE("rinv_unanswered",			case_rinv_unanswered),
	CASE("rinv_stale_key",			case_rinv_stale_key),
	CASE("rinv_not_granted",		case_rinv_not_granted),
	CASE("rinv_first_msg",			case_rinv_first_msg),
	CASE("rinv_imposed",			case_rinv_imposed),
	CASE("chunk_addrs_opaque",		case_chunk_addrs_opaque),
	CASE("silent_peer",			case_silent_peer),
	CASE("credit_grow",			case_credit_grow),
	VARIANT("credit_nofeat",		case_credit_bad, CREDIT_NOFEAT),
	VARIANT("credit_srv_off",		case_credit_bad, CREDIT_SRV_OFF),
	VARIANT("credit_req_want_zero",		case_credit_bad, CREDIT_REQ_WANT_ZERO),
	VARIANT("credit_req_want_range",	case_credit_bad, CREDIT_REQ_WANT_RANGE),
	VARIANT("credit_req_chunk",		case_credit_bad, CREDIT_REQ_CHUNK),
	VARIANT("credit_req_flood",		case_credit_bad, CREDIT_REQ_FLOOD),
	VARIANT("credit_rel_not_granted",	case_credit_bad, CREDIT_REL_NOT_GRANTED),
	VARIANT("credit_rel_range",		case_credit_bad, CREDIT_REL_RANGE),
	VARIANT("credit_rel_twice",		case_credit_bad, CREDIT_REL_TWICE),
	VARIANT("credit_rel_in_use",		case_credit_bad, CREDIT_REL_IN_USE),
	VARIANT("credit_req_ungranted",		case_credit_bad, CREDIT_REQ_UNGRANTED),
	VARIANT("credit_cancel_ungranted_nofeat", case_credit_bad,
		CREDIT_CANCEL_UNGRANTED_NOFEAT),
	VARIANT("credit_rel_below_floor",	case_credit_bad, CREDIT_REL_BELOW_FLOOR),
	CASE("credit_cancel_ungranted",		case_credit_cancel_ungranted),
	CASE("credit_revoke",			case_credit_revoke),
	CASE("credit_pool_enospc",		case_credit_pool_enospc),
	CASE("credit_reclaim_after_answer",	case_credit_reclaim_after_answer),
	CASE("credit_rel_race",			case_credit_rel_race),
};

static void overrun(int sig)
{
	static const char msg[] = "# rift-peer: case overran its time budget\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: rift-peer [-s SRC] [-d DST] [-p PORT] [-t MS] [-V UUID:SESSION:HOST] [-F N] [-L SECS] [-C N] [CASE...]\n"
		"       rift-peer -B -D DEV [-X DEV:DEV_ID] [-R FILE] [-N N] [-s SRC] [-d DST] [-p PORT] [-t MS] [CASE...]\n"
		"       rift-peer [-B] -l\n");
	exit(2);
}

/* The table the run uses: the transport's cases, or riftblk's (-B). */
static const struct peer_case *tab = cases;
static size_t tab_len = ARRAY_SIZE(cases);

static const struct peer_case *find_case(const char *name)
{
	size_t i;

	for (i = 0; i < tab_len; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct peer_case *sel[256];
	int pass = 0, fail = 0, opt, port = 0;
	bool ok, list = false;
	size_t n = 0, i;

	while ((opt = getopt(argc, argv, "s:d:p:t:V:F:L:C:BD:X:R:N:lh")) != -1) {
		switch (opt) {
		case 's':
			target.src = optarg;
			break;
		case 'd':
			target.dst = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 't':
			peer_timeout_ms = atoi(optarg);
			if (peer_timeout_ms <= 0)
				print_usage();
			break;
		case 'F':
			flood_n = atoi(optarg);
			if (!flood_n)
				print_usage();
			break;
		case 'L':
			flood_secs = atoi(optarg);
			break;
		case 'C':
			churn_n = atoi(optarg);
			if (!churn_n)
				print_usage();
			break;
		case 'V':
			if (!victim_parse(optarg))
				print_usage();
			break;
		case 'B':
			/* riftblk's own port unless -p says otherwise. */
			tab = blk_cases;
			tab_len = blk_nr_cases;
			target.port = RIFTBLK_PEER_PORT;
			break;
		case 'l':
			list = true;
			break;
		default:
			if (!blk_option(opt, optarg))
				print_usage();
		}
	}
	static_assert(ARRAY_SIZE(cases) <= ARRAY_SIZE(sel));
	if (port)
		target.port = port;
	if (list) {
		for (i = 0; i < tab_len; i++)
			if (!tab[i].manual)
				printf("%s\n", tab[i].name);
		return 0;
	}
	if (optind == argc) {
		for (i = 0; i < tab_len && n < ARRAY_SIZE(sel); i++)
			if (!tab[i].manual)
				sel[n++] = &tab[i];
	}
	for (; optind < argc; optind++) {
		const struct peer_case *tc = find_case(argv[optind]);

		if (!tc || n == ARRAY_SIZE(sel)) {
			fprintf(stderr, "rift-peer: no case '%s' (see -l)\n", argv[optind]);
			return 2;
		}
		sel[n++] = tc;
	}

	reverse.src = target.dst;
	reverse.dst = target.src;
	reverse.port = target.port;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, overrun);
	run_id_init();
	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < n; i++) {
		cur_case = sel[i]->name;
		/* Every wait is bounded; this catches a bug in the peer itself. */
		alarm(8 * peer_timeout_ms / 1000 + 30);
		ok = sel[i]->run(sel[i]);
		alarm(0);
		printf("%sok %zu %s\n", ok ? "" : "not ", i + 1, sel[i]->name);
		if (ok)
			pass++;
		else
			fail++;
	}
	cur_case = "rift-peer";
	diag("%d passed, %d failed", pass, fail);
	return fail ? 1 : 0;
}
