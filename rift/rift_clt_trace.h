/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift client tracepoints: every reconnect delay drawn and every progress
 * tick that found an IO connection stalled (path state changes, rdma_cm
 * events and heartbeat ticks are rift:rift_state, rift:rift_con_event and
 * rift:rift_hb_tick, shared with the server).  Enable with
 * echo 1 > /sys/kernel/tracing/events/rift_clt/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rift_clt

#if !defined(_RIFT_CLT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RIFT_CLT_TRACE_H

#include <linux/tracepoint.h>
#include <rift/rift-compat.h>

TRACE_EVENT(rift_clt_path_backoff,
	    TP_PROTO(const char *sess, const char *path, u32 attempt, u64 delay_ms),
	    TP_ARGS(sess, path, attempt, delay_ms),
	    TP_STRUCT__entry(__string(sess, sess)
			     __string(path, path)
			     __field(u32, attempt)
			     __field(u64, delay_ms)),
	    TP_fast_assign(rift_assign_str(sess, sess);
			   rift_assign_str(path, path);
			   __entry->attempt = attempt;
			   __entry->delay_ms = delay_ms;),
	    TP_printk("%s/%s: reconnect attempt %u in %llu ms", __get_str(sess),
		      __get_str(path), __entry->attempt, __entry->delay_ms)
);

TRACE_EVENT(rift_clt_stall,
	    TP_PROTO(const char *sess, const char *path, u16 con, u32 silent_ms,
		     int inflight, const char *action),
	    TP_ARGS(sess, path, con, silent_ms, inflight, action),
	    TP_STRUCT__entry(__string(sess, sess)
			     __string(path, path)
			     __field(u16, con)
			     __field(u32, silent_ms)
			     __field(int, inflight)
			     __string(action, action)),
	    TP_fast_assign(rift_assign_str(sess, sess);
			   rift_assign_str(path, path);
			   __entry->con = con;
			   __entry->silent_ms = silent_ms;
			   __entry->inflight = inflight;
			   rift_assign_str(action, action);),
	    /* action: "probe sent", "probe out" (waiting) or "no progress". */
	    TP_printk("%s/%s con %u: nothing received for %u ms, %d in flight, %s",
		      __get_str(sess), __get_str(path), __entry->con,
		      __entry->silent_ms, __entry->inflight, __get_str(action))
);

#endif /* _RIFT_CLT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rift_clt_trace
#include <trace/define_trace.h>
