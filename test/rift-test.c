// SPDX-License-Identifier: GPL-2.0
/*
 * Rift test ULP, client side: a client driven through debugfs, so the
 * kselftests can exercise the transport without a block device.  Its
 * server is rift-test-srv.ko, a module of its own so that the server side
 * can be unloaded and reloaded under IO.  Testing only.
 *
 * Client: /sys/kernel/debug/rift-test/
 *   open	write "sessname=S path=[SRC@]DST [path=...] [port=N]
 *		[queue_depth=N] [nr_cons=N]" to open session S
 *   S/io	write "write|read|verify OFFSET LEN SEED [COUNT [DEPTH]]":
 *		COUNT requests of LEN bytes at OFFSET, OFFSET+LEN, ...,
 *		DEPTH of them in flight; write fills a pattern derived from
 *		SEED and the offset, verify reads it back and compares.
 *		A verified read lands in a buffer first filled with the
 *		complement of what it must bring (so data that never
 *		arrived cannot verify).  The run stops submitting at the
 *		first request that cannot be submitted.
 *		or write "random OFFSET COUNT DEPTH SEED [MAXLEN]": COUNT
 *		requests of random direction and random size (1 byte up to
 *		MAXLEN, default and at most the session's max_io_size), DEPTH
 *		in flight; in-flight slot k owns the region
 *		OFFSET + k * max_io_size of the store, so requests of
 *		one run never overlap.  Writes fill a pattern derived from
 *		SEED, a generation and the byte's offset; reads read up to
 *		the length last written to the region and verify every
 *		byte.  Failed requests are counted and the run goes on.
 *		Several runs may go on at once on one session (on disjoint
 *		regions).  The write(2) fails with the run's first error,
 *		-EILSEQ if data did not verify, -ECONNRESET if the session
 *		was closed under the run.
 *   S/last	result of the last io run to finish:
 *		"ops bytes usecs errors reads writes"
 *   S/stats	totals over every run of the session, one "key value" per
 *		line, and a line "err -EXXX N" per errno seen
 *   close	write S to close session S; runs going on stop submitting,
 *		their requests in flight fail and they return
 *   bad_completions
 *		completions the transport delivered twice or for a request
 *		not in flight, over the module's lifetime (must stay 0)
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/vmalloc.h>
#include <linux/ktime.h>
#include <linux/inet.h>
#include <linux/kref.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <linux/prandom.h>
#include <linux/err.h>
#include <linux/parser.h>

#include <rift/rift.h>
#include <rift/rift-compat.h>
#include "rift-test.h"

#define RIFT_TEST_MAX_DEPTH	64
/*
 * Longest request of a read/write/verify run: the largest chunk the
 * protocol allows (4 MiB), so that longer ones that reach the transport are
 * refused by its own limit (max_io_size), which is what tests look at.
 */
#define RIFT_TEST_MAX_LEN	(4U << 20)
#define RIFT_TEST_MAX_COUNT	1000000U
/* Tickets of a live run carry this; a freed one does not. */
#define RIFT_TEST_TICKET_LIVE	0x4c495645U	/* "LIVE" */
#define RIFT_TEST_TICKET_DEAD	0x44454144U	/* "DEAD" */
/* Errnos counted one by one in S/stats (EHWPOISON is 133). */
#define RIFT_TEST_NR_ERRNO	134
/* How long a run waits before saying it still waits for completions. */
#define RIFT_TEST_WAIT_REPORT	(30 * HZ)

static uint store_mb = 16;
module_param(store_mb, uint, 0444);
MODULE_PARM_DESC(store_mb, "Size of the server's RAM store in MiB, to bound runs (default 16)");

/*
 * A session is in the list from the start of its open to the end of its
 * close, so its name (and debugfs directory) cannot be taken twice.
 */
enum rift_test_sess_state {
	RIFT_TEST_OPENING,
	RIFT_TEST_LIVE,
	RIFT_TEST_CLOSING,
};

struct rift_test_totals {
	u64	runs;
	u64	ops;
	u64	bytes;
	u64	errors;
	u64	reads;
	u64	writes;
	u32	errnos[RIFT_TEST_NR_ERRNO + 1];	/* by -errno; last: others */
};

struct rift_test_sess {
	/* The list's reference, and one per io run going on. */
	struct kref		kref;
	struct list_head	entry;		/* under rift_test_lock */
	enum rift_test_sess_state state;	/* under rift_test_lock */
	struct rift_clt_sess	*sess;
	struct dentry		*dir;
	char			name[RIFT_NAME_MAX + 1];
	u32			max_io_size;
	/*
	 * Submitting (get_permit + request) holds this for read; close
	 * takes it for write to set @closed, so that no request starts
	 * once rift_clt_close() may run.  Never held while waiting for
	 * completions: close must not wait for a whole run.
	 */
	struct rw_semaphore	submit_sem;
	bool			closed;
	atomic_t		bad_completions;
	spinlock_t		stats_lock;	/* last, totals */
	char			last[96];
	struct rift_test_totals	totals;
};

enum rift_test_op {
	RIFT_TEST_OP_WRITE,
	RIFT_TEST_OP_READ,
	RIFT_TEST_OP_VERIFY,
	RIFT_TEST_OP_RANDOM,
};

/*
 * One per request of a run, never reused within the run: the transport
 * must call done exactly once per submitted request, and a second call,
 * or one for a request that was never submitted, finds the ticket in the
 * wrong state instead of silently completing whatever the slot is doing
 * now.
 */
enum rift_test_ticket_state {
	RIFT_TEST_T_UNUSED,
	RIFT_TEST_T_INFLIGHT,
	RIFT_TEST_T_DONE,
	RIFT_TEST_T_NOT_SUBMITTED,
};

struct rift_test_run;

struct rift_test_ticket {
	u32			magic;
	atomic_t		state;
	struct rift_test_run	*run;
	u32			slot;
	int			err;
};

/* What one in-flight request needs; a run has DEPTH of them. */
struct rift_test_slot {
	struct list_head	entry;		/* free, or run->done */
	struct rift_test_ticket	*ticket;
	struct rift_permit	*permit;
	struct page		**pages;
	struct scatterlist	*sg;
	unsigned int		nr_pages;
	struct rift_test_hdr	hdr;
	enum rift_dir		dir;
	bool			verify;
	u64			offset;
	u32			len;
	u64			key;		/* pattern of the data */
	/* random: the slot's region and what the server holds there */
	u64			region;
	u32			written_gen;
	u32			written_len;	/* 0: unknown, write first */
	u32			gen;		/* of the write in flight */
};

struct rift_test_run {
	struct rift_test_sess	*ts;
	enum rift_test_op	op;
	u64			offset;
	u32			len;
	u32			max_len;	/* random: largest size drawn */
	u32			seed;
	u32			count;
	u32			depth;
	u32			gen;
	struct rnd_state	rnd;
	struct rift_test_slot	*slots;
	struct rift_test_ticket	*tickets;
	/* Completed slots, handed over by the done callback. */
	spinlock_t		lock;
	struct list_head	done;
	wait_queue_head_t	wq;
	/* Results. */
	u32			ops;
	u32			errors;
	u32			reads;
	u32			writes;
	u64			bytes;
	int			err;
	u32			errnos[RIFT_TEST_NR_ERRNO + 1];
};

static struct dentry *rift_test_dir;
static LIST_HEAD(rift_test_sessions);
static DEFINE_MUTEX(rift_test_lock);
/* Over the module's lifetime, so a test can look after closing. */
static atomic_t rift_test_bad_completions = ATOMIC_INIT(0);

/*
 * The data pattern: 64-bit words, each a bijective mix of the word's
 * index in the store and a key.  Data that lands at the wrong offset, or
 * a stale generation, differs in every word.
 */
static u64 rift_test_key(u32 seed, u32 gen)
{
	u64 k = ((u64)seed << 32 | gen) * 0xbf58476d1ce4e5b9ULL;

	return k ^ (k >> 31);
}

static u64 rift_test_word(u64 key, u64 word)
{
	u64 x = (word + key) * 0x9e3779b97f4a7c15ULL;

	return x ^ (x >> 29);
}

static u8 rift_test_byte(u64 key, u64 pos)
{
	return rift_test_word(key, pos >> 3) >> (8 * (pos & 7));
}

/* @inv: 0 for the pattern, ~0 for its complement (see rift_test_poison()) */
static void rift_test_fill_buf(u8 *p, u32 n, u64 key, u64 pos, u64 inv)
{
	u32 i = 0;

	for (; i < n && ((pos + i) & 7); i++)
		p[i] = rift_test_byte(key, pos + i) ^ (u8)inv;
	for (; i + 8 <= n; i += 8)
		put_unaligned_le64(rift_test_word(key, (pos + i) >> 3) ^ inv, p + i);
	for (; i < n; i++)
		p[i] = rift_test_byte(key, pos + i) ^ (u8)inv;
}

/* Return: index of the first byte of @p that differs, or @n. */
static u32 rift_test_check_buf(const u8 *p, u32 n, u64 key, u64 pos)
{
	u32 i = 0;

	for (; i < n && ((pos + i) & 7); i++)
		if (p[i] != rift_test_byte(key, pos + i))
			return i;
	for (; i + 8 <= n; i += 8)
		if (get_unaligned_le64(p + i) != rift_test_word(key, (pos + i) >> 3))
			break;
	for (; i < n; i++)
		if (p[i] != rift_test_byte(key, pos + i))
			return i;
	return n;
}

static void rift_test_fill_inv(struct rift_test_slot *slot, u64 inv)
{
	u32 done, n;
	unsigned int i;

	for (i = 0, done = 0; done < slot->len; i++, done += n) {
		n = min_t(u32, PAGE_SIZE, slot->len - done);
		rift_test_fill_buf(page_address(slot->pages[i]), n, slot->key,
				   slot->offset + done, inv);
	}
}

static void rift_test_fill(struct rift_test_slot *slot)
{
	rift_test_fill_inv(slot, 0);
}

/*
 * Before a verified read: every byte of the buffer becomes the complement
 * of the byte the read must bring.  A slot's pages often hold exactly the
 * expected data already (random mode writes a region from the slot that
 * then reads it back; freed pages of a write run come back to the next
 * verify run), so without this a read whose data never arrived would
 * verify.  A fixed poison byte would not do either: a one-byte read
 * expecting that very byte would pass.
 */
static void rift_test_poison(struct rift_test_slot *slot)
{
	rift_test_fill_inv(slot, ~0ULL);
}

static int rift_test_check(struct rift_test_run *run, struct rift_test_slot *slot)
{
	u32 done, n, bad;
	unsigned int i;
	u8 *p;

	for (i = 0, done = 0; done < slot->len; i++, done += n) {
		n = min_t(u32, PAGE_SIZE, slot->len - done);
		p = page_address(slot->pages[i]);
		bad = rift_test_check_buf(p, n, slot->key, slot->offset + done);
		if (bad == n)
			continue;
		pr_err_ratelimited("%s: verify: offset %llu: expected %02x, got %02x (read of %u bytes at %llu)\n",
				   run->ts->name, slot->offset + done + bad,
				   rift_test_byte(slot->key, slot->offset + done + bad),
				   p[bad], slot->len, slot->offset);
		return -EILSEQ;
	}
	return 0;
}

static void rift_test_slot_free(struct rift_test_slot *slot)
{
	unsigned int i;

	if (slot->pages)
		for (i = 0; i < slot->nr_pages; i++)
			if (slot->pages[i])
				__free_page(slot->pages[i]);
	kfree(slot->pages);
	kfree(slot->sg);
}

static int rift_test_slot_alloc(struct rift_test_slot *slot, u32 len)
{
	unsigned int i, nr = DIV_ROUND_UP(len, PAGE_SIZE);

	slot->pages = kcalloc(nr, sizeof(*slot->pages), GFP_KERNEL);
	slot->sg = kcalloc(nr, sizeof(*slot->sg), GFP_KERNEL);
	if (!slot->pages || !slot->sg)
		return -ENOMEM;
	slot->nr_pages = nr;
	for (i = 0; i < nr; i++) {
		slot->pages[i] = alloc_page(GFP_KERNEL);
		if (!slot->pages[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * Completion of a request, from any context.  The permit goes back here,
 * so once rift_clt_close() has failed what was in flight, the session has
 * every permit back and the run only looks at its own slots.
 */
static void rift_test_done(void *priv, int err)
{
	struct rift_test_ticket *t = priv;
	struct rift_test_run *run;
	struct rift_test_slot *slot;
	unsigned long flags;
	int state;

	if (READ_ONCE(t->magic) != RIFT_TEST_TICKET_LIVE) {
		atomic_inc(&rift_test_bad_completions);
		pr_err("completion (err %d) for a request of a finished run\n", err);
		return;
	}
	run = t->run;
	state = atomic_cmpxchg(&t->state, RIFT_TEST_T_INFLIGHT, RIFT_TEST_T_DONE);
	if (state != RIFT_TEST_T_INFLIGHT) {
		atomic_inc(&rift_test_bad_completions);
		atomic_inc(&run->ts->bad_completions);
		pr_err("%s: request %td (slot %u) completed %s (err %d)\n",
		       run->ts->name, t - run->tickets, t->slot,
		       state == RIFT_TEST_T_DONE ? "twice" : "while not in flight",
		       err);
		return;
	}
	t->err = err;
	slot = &run->slots[t->slot];
	rift_clt_put_permit(run->ts->sess, slot->permit);
	/* Woken under the lock: the run may free itself once it sees this. */
	spin_lock_irqsave(&run->lock, flags);
	list_add_tail(&slot->entry, &run->done);
	wake_up(&run->wq);
	spin_unlock_irqrestore(&run->lock, flags);
}

/* Decide the slot's next request and fill the data of a write. */
static void rift_test_prepare(struct rift_test_run *run,
			      struct rift_test_slot *slot, u32 n)
{
	u32 r;

	slot->verify = false;
	if (run->op != RIFT_TEST_OP_RANDOM) {
		slot->offset = run->offset + (u64)n * run->len;
		slot->len = run->len;
		slot->key = rift_test_key(run->seed, 0);
		slot->dir = run->op == RIFT_TEST_OP_WRITE ? RIFT_WRITE : RIFT_READ;
		slot->verify = run->op == RIFT_TEST_OP_VERIFY;
		if (slot->dir == RIFT_WRITE)
			rift_test_fill(slot);
		else if (slot->verify)
			rift_test_poison(slot);
		return;
	}
	r = prandom_u32_state(&run->rnd);
	slot->offset = slot->region;
	if (!slot->written_len || (r & 1)) {
		slot->dir = RIFT_WRITE;
		slot->len = 1 + prandom_u32_state(&run->rnd) % run->max_len;
		slot->gen = ++run->gen;
		slot->key = rift_test_key(run->seed, slot->gen);
		rift_test_fill(slot);
	} else {
		slot->dir = RIFT_READ;
		slot->len = 1 + prandom_u32_state(&run->rnd) % slot->written_len;
		slot->key = rift_test_key(run->seed, slot->written_gen);
		slot->verify = true;
		rift_test_poison(slot);
	}
}

/* rift_test_submit(): the session is closing, nothing was submitted. */
#define RIFT_TEST_CLOSED	1

/*
 * Return: 0 if submitted (done will be called), RIFT_TEST_CLOSED, or the
 * error of a request that was not submitted (its permit is back then).
 */
static int rift_test_submit(struct rift_test_run *run,
			    struct rift_test_slot *slot, struct rift_test_ticket *t)
{
	struct rift_test_sess *ts = run->ts;
	struct rift_clt_req_ops ops = { .priv = t, .done = rift_test_done };
	struct kvec usr = { .iov_base = &slot->hdr, .iov_len = sizeof(slot->hdr) };
	unsigned int i, nr = DIV_ROUND_UP(slot->len, PAGE_SIZE);
	int err;

	slot->hdr.magic = cpu_to_le32(RIFT_TEST_MAGIC);
	slot->hdr.len = cpu_to_le32(slot->len);
	slot->hdr.offset = cpu_to_le64(slot->offset);
	sg_init_table(slot->sg, nr);
	for (i = 0; i < nr; i++)
		sg_set_page(&slot->sg[i], slot->pages[i],
			    min_t(u32, PAGE_SIZE, slot->len - i * PAGE_SIZE), 0);
	t->magic = RIFT_TEST_TICKET_LIVE;
	t->run = run;
	t->slot = slot - run->slots;
	slot->ticket = t;

	down_read(&ts->submit_sem);
	if (ts->closed) {
		up_read(&ts->submit_sem);
		return RIFT_TEST_CLOSED;
	}
	slot->permit = rift_clt_get_permit(ts->sess, RIFT_PERMIT_WAIT);
	/* Before the request: done may run before it returns. */
	atomic_set(&t->state, RIFT_TEST_T_INFLIGHT);
	err = rift_clt_request(ts->sess, slot->dir, &ops, slot->permit, &usr, 1,
			       slot->len, slot->sg, nr, 0);
	if (err) {
		/* Not submitted: a done call for it now would be a bug. */
		if (atomic_cmpxchg(&t->state, RIFT_TEST_T_INFLIGHT,
				   RIFT_TEST_T_NOT_SUBMITTED) != RIFT_TEST_T_INFLIGHT) {
			atomic_inc(&rift_test_bad_completions);
			atomic_inc(&ts->bad_completions);
			pr_err("%s: request %td failed to submit (%d) but completed\n",
			       ts->name, t - run->tickets, err);
		} else {
			rift_clt_put_permit(ts->sess, slot->permit);
		}
	}
	up_read(&ts->submit_sem);
	return err;
}

/* Account a finished request; verify a read; track the region's content. */
static void rift_test_finish(struct rift_test_run *run,
			     struct rift_test_slot *slot, int err)
{
	run->ops++;
	if (slot->dir == RIFT_READ)
		run->reads++;
	else
		run->writes++;
	if (!err && slot->verify)
		err = rift_test_check(run, slot);
	if (run->op == RIFT_TEST_OP_RANDOM) {
		if (slot->dir == RIFT_WRITE && !err) {
			slot->written_gen = slot->gen;
			slot->written_len = slot->len;
		} else if (err) {
			/* A failed write may or may not have landed. */
			slot->written_len = 0;
		}
	}
	if (!err) {
		run->bytes += slot->len;
		return;
	}
	run->errors++;
	run->errnos[min_t(u32, -err, RIFT_TEST_NR_ERRNO)]++;
	/* A mismatch matters more than any transport error. */
	if (!run->err || err == -EILSEQ)
		run->err = err;
}

static bool rift_test_take_done(struct rift_test_run *run, struct list_head *done)
{
	unsigned long flags;

	spin_lock_irqsave(&run->lock, flags);
	list_splice_tail_init(&run->done, done);
	spin_unlock_irqrestore(&run->lock, flags);
	return !list_empty(done);
}

/*
 * Keep up to DEPTH requests in flight until COUNT have finished.  The
 * wait for completions is bounded only to report: a request the
 * transport never completes keeps the run (and close) waiting, and says
 * so in the kernel log.
 */
static void rift_test_run_loop(struct rift_test_run *run)
{
	struct rift_test_slot *slot, *tmp;
	LIST_HEAD(free);
	LIST_HEAD(done);
	u32 submitted = 0, inflight = 0, i;
	bool stop = false;
	int err;

	for (i = 0; i < run->depth; i++)
		list_add_tail(&run->slots[i].entry, &free);
	for (;;) {
		while (!stop && submitted < run->count && !list_empty(&free)) {
			slot = list_first_entry(&free, struct rift_test_slot, entry);
			list_del_init(&slot->entry);
			rift_test_prepare(run, slot, submitted);
			err = rift_test_submit(run, slot, &run->tickets[submitted]);
			if (err == RIFT_TEST_CLOSED) {
				list_add(&slot->entry, &free);
				run->err = run->err ? : -ECONNRESET;
				stop = true;
				break;
			}
			submitted++;
			if (!err) {
				inflight++;
				continue;
			}
			rift_test_finish(run, slot, err);
			list_add_tail(&slot->entry, &free);
			/* The fixed-pattern ops keep their old behaviour. */
			if (run->op != RIFT_TEST_OP_RANDOM)
				stop = true;
		}
		if (!inflight)
			break;
		/*
		 * A run is one write(2) of up to a million requests.  Where
		 * completions keep the done list non-empty the wait below
		 * never sleeps, and on a voluntary-preemption kernel slow
		 * enough to verify more slowly than the transport answers
		 * (the sanitizer kernel under TCG) the loop then kept its
		 * CPU from every other task, the test's shell included.
		 */
		cond_resched();
		while (!wait_event_timeout(run->wq, rift_test_take_done(run, &done),
					   RIFT_TEST_WAIT_REPORT))
			pr_err("%s: %u requests still in flight after %us\n",
			       run->ts->name, inflight, RIFT_TEST_WAIT_REPORT / HZ);
		list_for_each_entry_safe(slot, tmp, &done, entry) {
			list_del_init(&slot->entry);
			inflight--;
			rift_test_finish(run, slot, slot->ticket->err);
			list_add_tail(&slot->entry, &free);
		}
	}
}

static void rift_test_run_free(struct rift_test_run *run)
{
	u32 i;

	if (run->slots)
		for (i = 0; i < run->depth; i++)
			rift_test_slot_free(&run->slots[i]);
	kfree(run->slots);
	if (run->tickets)
		for (i = 0; i < run->count; i++)
			WRITE_ONCE(run->tickets[i].magic, RIFT_TEST_TICKET_DEAD);
	kvfree(run->tickets);
	kfree(run);
}

static void rift_test_account(struct rift_test_sess *ts,
			      struct rift_test_run *run, s64 usecs)
{
	struct rift_test_totals *tot = &ts->totals;
	unsigned int i;

	spin_lock(&ts->stats_lock);
	snprintf(ts->last, sizeof(ts->last), "%u %llu %lld %u %u %u\n",
		 run->ops, run->bytes, usecs, run->errors, run->reads,
		 run->writes);
	tot->runs++;
	tot->ops += run->ops;
	tot->bytes += run->bytes;
	tot->errors += run->errors;
	tot->reads += run->reads;
	tot->writes += run->writes;
	for (i = 0; i <= RIFT_TEST_NR_ERRNO; i++)
		tot->errnos[i] += run->errnos[i];
	spin_unlock(&ts->stats_lock);
}

/* Which errors a run saw, in the kernel log: evidence for a failed test. */
static void rift_test_report(struct rift_test_run *run)
{
	char buf[160] = "";
	int len = 0;
	u32 i;

	for (i = 1; i <= RIFT_TEST_NR_ERRNO; i++)
		if (run->errnos[i])
			len += scnprintf(buf + len, sizeof(buf) - len, " %pe x%u",
					 ERR_PTR(-(int)i), run->errnos[i]);
	pr_info("%s: %u of %u requests failed:%s\n", run->ts->name,
		run->errors, run->ops, buf);
}

static int rift_test_run(struct rift_test_sess *ts, enum rift_test_op op,
			 u64 offset, u32 len, u32 seed, u32 count, u32 depth)
{
	struct rift_test_run *run;
	ktime_t start = ktime_get();
	u32 i, max_len = 0;
	int err;

	if (!count || count > RIFT_TEST_MAX_COUNT || !depth ||
	    depth > RIFT_TEST_MAX_DEPTH)
		return -EINVAL;
	if (op == RIFT_TEST_OP_RANDOM) {
		/* @len caps the sizes drawn; the regions stay max_io_size. */
		max_len = len && len < ts->max_io_size ? len : ts->max_io_size;
		len = ts->max_io_size;
		/*
		 * The tests load client and server with the same store_mb
		 * in the tests: refuse a layout the store cannot hold here,
		 * rather than counting -ERANGE from the server as IO errors.
		 */
		if (offset + (u64)depth * len > (u64)store_mb << 20) {
			pr_info("%s: random: %u regions of %u bytes at %llu exceed the %u MiB store\n",
				ts->name, depth, len, offset, store_mb);
			return -ERANGE;
		}
	} else if (!len || len > RIFT_TEST_MAX_LEN) {
		return -EINVAL;
	}
	depth = min(depth, count);

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->ts = ts;
	run->op = op;
	run->offset = offset;
	run->len = len;
	run->max_len = max_len;
	run->seed = seed;
	run->count = count;
	run->depth = depth;
	prandom_seed_state(&run->rnd, seed);
	spin_lock_init(&run->lock);
	INIT_LIST_HEAD(&run->done);
	init_waitqueue_head(&run->wq);
	run->tickets = kvcalloc(count, sizeof(*run->tickets), GFP_KERNEL);
	run->slots = kcalloc(depth, sizeof(*run->slots), GFP_KERNEL);
	err = -ENOMEM;
	if (!run->tickets || !run->slots)
		goto out;
	for (i = 0; i < depth; i++) {
		run->slots[i].region = offset + (u64)i * len;
		err = rift_test_slot_alloc(&run->slots[i], len);
		if (err)
			goto out;
	}
	rift_test_run_loop(run);
	if (run->errors)
		rift_test_report(run);
	rift_test_account(ts, run, ktime_us_delta(ktime_get(), start));
	err = run->err;
out:
	rift_test_run_free(run);
	return err;
}

/*
 * "late OFFSET LEN SEED WAIT_MS": one read that the server answers late
 * (rift-test-srv's delay_next_ms, set by the test); "latew" the same
 * with a write, whose pages the late answer cannot touch anyway.  The read's pages
 * hold one pattern when it is submitted; once it has failed with
 * -ETIMEDOUT they are reused for another pattern, which must still be
 * there WAIT_MS later, after the late answer: the transport completes a
 * timed-out read only once its MR is invalidated, so the late RDMA WRITE
 * cannot land in them.
 */
static int rift_test_late(struct rift_test_sess *ts, enum rift_dir dir,
			  u64 offset, u32 len, u32 seed, u32 wait_ms)
{
	struct list_head done = LIST_HEAD_INIT(done);
	ktime_t start = ktime_get();
	struct rift_test_slot *slot;
	struct rift_test_run *run;
	s64 took_ms;
	int err;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->ts = ts;
	run->op = RIFT_TEST_OP_READ;
	run->count = 1;
	run->depth = 1;
	spin_lock_init(&run->lock);
	INIT_LIST_HEAD(&run->done);
	init_waitqueue_head(&run->wq);
	run->tickets = kvcalloc(1, sizeof(*run->tickets), GFP_KERNEL);
	run->slots = kcalloc(1, sizeof(*run->slots), GFP_KERNEL);
	err = -ENOMEM;
	if (!run->tickets || !run->slots)
		goto out;
	slot = &run->slots[0];
	err = rift_test_slot_alloc(slot, len);
	if (err)
		goto out;
	slot->offset = offset;
	slot->len = len;
	slot->dir = dir;
	slot->key = rift_test_key(seed, 1);
	rift_test_fill(slot);
	err = rift_test_submit(run, slot, &run->tickets[0]);
	if (err) {
		err = err == RIFT_TEST_CLOSED ? -ESHUTDOWN : err;
		goto out;
	}
	wait_event(run->wq, rift_test_take_done(run, &done));
	took_ms = ktime_ms_delta(ktime_get(), start);
	err = run->tickets[0].err;
	if (err != -ETIMEDOUT) {
		spin_lock(&ts->stats_lock);
		snprintf(ts->last, sizeof(ts->last),
			 "late: %s ended with %d after %lld ms\n",
			 dir == RIFT_READ ? "read" : "write", err, took_ms);
		spin_unlock(&ts->stats_lock);
		err = -EPROTO;
		goto out;
	}
	/* The pages are the ULP's again: reuse them at once. */
	slot->key = rift_test_key(seed, 2);
	rift_test_fill(slot);
	msleep(wait_ms);
	err = rift_test_check(run, slot);
	spin_lock(&ts->stats_lock);
	snprintf(ts->last, sizeof(ts->last),
		 "late: %s -ETIMEDOUT after %lld ms, reused pages %s\n",
		 dir == RIFT_READ ? "read" : "write", took_ms,
		 err ? "overwritten" : "intact");
	spin_unlock(&ts->stats_lock);
out:
	rift_test_run_free(run);
	return err;
}

static void rift_test_sess_release(struct kref *kref)
{
	kfree(container_of(kref, struct rift_test_sess, kref));
}

static ssize_t rift_test_io_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct rift_test_sess *ts = file->private_data;
	char buf[128], opname[8];
	u32 len, seed, n = 1, depth = 1;
	enum rift_test_op op;
	u64 offset;
	int err;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%7s", opname) != 1)
		return -EINVAL;
	if (!strcmp(opname, "late") || !strcmp(opname, "latew")) {
		if (sscanf(buf, "%*s %llu %u %u %u", &offset, &len, &seed,
			   &n) != 4 || !len || len > ts->max_io_size ||
		    n > 600000)
			return -EINVAL;
		kref_get(&ts->kref);
		err = rift_test_late(ts, opname[4] ? RIFT_WRITE : RIFT_READ,
				     offset, len, seed, n);
		kref_put(&ts->kref, rift_test_sess_release);
		return err ? err : count;
	}
	if (!strcmp(opname, "random")) {
		op = RIFT_TEST_OP_RANDOM;
		len = 0;
		if (sscanf(buf, "%*s %llu %u %u %u %u", &offset, &n, &depth,
			   &seed, &len) < 4)
			return -EINVAL;
	} else {
		if (!strcmp(opname, "write"))
			op = RIFT_TEST_OP_WRITE;
		else if (!strcmp(opname, "read"))
			op = RIFT_TEST_OP_READ;
		else if (!strcmp(opname, "verify"))
			op = RIFT_TEST_OP_VERIFY;
		else
			return -EINVAL;
		if (sscanf(buf, "%*s %llu %u %u %u %u", &offset, &len, &seed,
			   &n, &depth) < 3)
			return -EINVAL;
	}
	/* debugfs keeps @ts alive during the write; the run holds it too. */
	kref_get(&ts->kref);
	err = rift_test_run(ts, op, offset, len, seed, n, depth);
	kref_put(&ts->kref, rift_test_sess_release);
	return err ? err : count;
}

static const struct file_operations rift_test_io_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rift_test_io_write,
	.llseek = noop_llseek,
};

#ifdef CONFIG_RIFT_DEBUG
/*
 * Writing anything makes the transport write into a chunk with the rkey
 * always-invalidate rotated away; the write succeeds only if the server's
 * device refused it.  The hook exists only in a rift-client built with
 * CONFIG_RIFT_DEBUG, and so does this file.
 */
static ssize_t rift_test_stale_rkey_write(struct file *file,
					  const char __user *ubuf,
					  size_t count, loff_t *ppos)
{
	struct rift_test_sess *ts = file->private_data;
	int err = -ESHUTDOWN;

	kref_get(&ts->kref);
	down_read(&ts->submit_sem);
	if (!ts->closed)
		err = rift_clt_test_stale_rkey(ts->sess);
	up_read(&ts->submit_sem);
	kref_put(&ts->kref, rift_test_sess_release);
	return err ? err : count;
}

static const struct file_operations rift_test_stale_rkey_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rift_test_stale_rkey_write,
	.llseek = noop_llseek,
};

static void rift_test_debugfs_hooks(struct rift_test_sess *ts)
{
	debugfs_create_file("stale_rkey", 0200, ts->dir, ts,
			    &rift_test_stale_rkey_fops);
}
#else
static void rift_test_debugfs_hooks(struct rift_test_sess *ts) {}
#endif

static ssize_t rift_test_last_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct rift_test_sess *ts = file->private_data;
	char last[sizeof(ts->last)];

	spin_lock(&ts->stats_lock);
	memcpy(last, ts->last, sizeof(last));
	spin_unlock(&ts->stats_lock);
	return simple_read_from_buffer(ubuf, count, ppos, last, strlen(last));
}

static const struct file_operations rift_test_last_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rift_test_last_read,
	.llseek = default_llseek,
};

static int rift_test_stats_show(struct seq_file *m, void *v)
{
	struct rift_test_sess *ts = m->private;
	struct rift_test_totals *tot;
	unsigned int i;

	tot = kmalloc(sizeof(*tot), GFP_KERNEL);
	if (!tot)
		return -ENOMEM;
	spin_lock(&ts->stats_lock);
	*tot = ts->totals;
	spin_unlock(&ts->stats_lock);
	seq_printf(m, "runs %llu\nops %llu\nbytes %llu\nerrors %llu\n",
		   tot->runs, tot->ops, tot->bytes, tot->errors);
	seq_printf(m, "reads %llu\nwrites %llu\nbad_completions %d\n",
		   tot->reads, tot->writes, atomic_read(&ts->bad_completions));
	for (i = 1; i < RIFT_TEST_NR_ERRNO; i++)
		if (tot->errnos[i])
			seq_printf(m, "err %pe %u\n", ERR_PTR(-(int)i),
				   tot->errnos[i]);
	if (tot->errnos[RIFT_TEST_NR_ERRNO])
		seq_printf(m, "err other %u\n", tot->errnos[RIFT_TEST_NR_ERRNO]);
	kfree(tot);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(rift_test_stats);

/*
 * Close in this order: no new submission (closed, under the write lock),
 * then rift_clt_close(), which fails what is in flight, so the runs wake
 * up, see @closed and return; only then can the debugfs files go, since
 * removing them waits for their writers.
 */
static void rift_test_sess_close(struct rift_test_sess *ts)
{
	down_write(&ts->submit_sem);
	ts->closed = true;
	up_write(&ts->submit_sem);
	rift_clt_close(ts->sess);
	debugfs_remove_recursive(ts->dir);
	mutex_lock(&rift_test_lock);
	list_del(&ts->entry);
	mutex_unlock(&rift_test_lock);
	kref_put(&ts->kref, rift_test_sess_release);
}

/*
 * Closing goes through a top-level file naming the session: a file inside
 * the session's directory could not remove that directory while its own
 * write is running.
 */
static ssize_t rift_test_close_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct rift_test_sess *ts, *found = NULL;
	char name[RIFT_NAME_MAX + 2];
	size_t len;
	int err = -ENOENT;

	if (count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	len = strcspn(name, "\n");
	name[len] = '\0';

	/* A duplicate being opened (and refused) may share the name. */
	mutex_lock(&rift_test_lock);
	list_for_each_entry(ts, &rift_test_sessions, entry) {
		if (strcmp(ts->name, name))
			continue;
		if (ts->state == RIFT_TEST_LIVE) {
			ts->state = RIFT_TEST_CLOSING;
			found = ts;
			break;
		}
		err = -EBUSY;
	}
	mutex_unlock(&rift_test_lock);
	if (!found)
		return err;
	rift_test_sess_close(found);
	return count;
}

static const struct file_operations rift_test_close_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rift_test_close_write,
	.llseek = noop_llseek,
};

#define RIFT_TEST_MAX_PATHS	8

struct rift_test_addrs {
	struct rift_path_addr		paths[RIFT_TEST_MAX_PATHS];
	struct sockaddr_storage		srcs[RIFT_TEST_MAX_PATHS];
	struct sockaddr_storage		dsts[RIFT_TEST_MAX_PATHS];
};

/*
 * Only a session this module is opening or closing makes the name busy
 * here: a live one's duplicate is the transport's to refuse.
 */
static int rift_test_sess_add(struct rift_test_sess *ts)
{
	struct rift_test_sess *t;

	mutex_lock(&rift_test_lock);
	list_for_each_entry(t, &rift_test_sessions, entry) {
		if (t->state != RIFT_TEST_LIVE && !strcmp(t->name, ts->name)) {
			mutex_unlock(&rift_test_lock);
			return -EEXIST;
		}
	}
	list_add(&ts->entry, &rift_test_sessions);
	mutex_unlock(&rift_test_lock);
	return 0;
}

static void rift_test_sess_abort(struct rift_test_sess *ts)
{
	mutex_lock(&rift_test_lock);
	list_del(&ts->entry);
	mutex_unlock(&rift_test_lock);
	kfree(ts);
}

enum {
	RIFT_TEST_OPT_SESSNAME,
	RIFT_TEST_OPT_PATH,
	RIFT_TEST_OPT_PORT,
	RIFT_TEST_OPT_QUEUE_DEPTH,
	RIFT_TEST_OPT_NR_CONS,
	RIFT_TEST_OPT_ERR,
};

static const match_table_t rift_test_open_opts = {
	{ RIFT_TEST_OPT_SESSNAME,	"sessname=%s" },
	{ RIFT_TEST_OPT_PATH,		"path=%s" },
	{ RIFT_TEST_OPT_PORT,		"port=%u" },
	{ RIFT_TEST_OPT_QUEUE_DEPTH,	"queue_depth=%u" },
	{ RIFT_TEST_OPT_NR_CONS,	"nr_cons=%u" },
	{ RIFT_TEST_OPT_ERR,		NULL },
};

/* One "key=value" of the open line; a path points into @tok. */
static int rift_test_open_opt(char *tok, struct rift_clt_open_args *oa,
			      char *name, char **path_str, unsigned int *nr_paths)
{
	substring_t arg[MAX_OPT_ARGS];
	unsigned int v;

	switch (match_token(tok, rift_test_open_opts, arg)) {
	case RIFT_TEST_OPT_SESSNAME:
		/* %s runs to the token's end: arg[0].from is a C string. */
		return strscpy(name, arg[0].from, RIFT_NAME_MAX + 1) < 0 ? -EINVAL : 0;
	case RIFT_TEST_OPT_PATH:
		if (*nr_paths == RIFT_TEST_MAX_PATHS)
			return -E2BIG;
		path_str[(*nr_paths)++] = arg[0].from;
		return 0;
	case RIFT_TEST_OPT_PORT:
		if (match_uint(&arg[0], &v) || v > U16_MAX)
			return -EINVAL;
		oa->port = v;
		return 0;
	case RIFT_TEST_OPT_QUEUE_DEPTH:
		if (match_uint(&arg[0], &v) || v > RIFT_MAX_QUEUE_DEPTH)
			return -EINVAL;
		oa->queue_depth = v;
		return 0;
	case RIFT_TEST_OPT_NR_CONS:
		if (match_uint(&arg[0], &v) || v > RIFT_MAX_CONS)
			return -EINVAL;
		oa->nr_cons = v;
		return 0;
	default:
		return -EINVAL;
	}
}

static int rift_test_open_sess(char *args, struct rift_test_addrs *a)
{
	struct rift_clt_open_args oa = {};
	struct rift_clt_attrs attrs;
	struct rift_test_sess *ts;
	char *tok, *path_str[RIFT_TEST_MAX_PATHS], name[RIFT_NAME_MAX + 1] = "";
	unsigned int i, nr_paths = 0;
	int err;

	while ((tok = strsep(&args, "\n "))) {
		if (!*tok)
			continue;
		err = rift_test_open_opt(tok, &oa, name, path_str, &nr_paths);
		if (err)
			return err;
	}
	if (!name[0] || !nr_paths)
		return -EINVAL;
	for (i = 0; i < nr_paths; i++) {
		err = rift_clt_parse_path(path_str[i], &a->srcs[i], &a->dsts[i],
					  oa.port ? oa.port : RIFT_DEFAULT_PORT);
		if (err)
			return err;
		a->paths[i].src = &a->srcs[i];
		a->paths[i].dst = &a->dsts[i];
	}

	ts = kzalloc(sizeof(*ts), GFP_KERNEL);
	if (!ts)
		return -ENOMEM;
	kref_init(&ts->kref);
	init_rwsem(&ts->submit_sem);
	spin_lock_init(&ts->stats_lock);
	atomic_set(&ts->bad_completions, 0);
	ts->state = RIFT_TEST_OPENING;
	strscpy(ts->name, name, sizeof(ts->name));
	err = rift_test_sess_add(ts);
	if (err) {
		kfree(ts);
		return err;
	}
	oa.sessname = name;
	oa.paths = a->paths;
	oa.nr_paths = nr_paths;
	ts->sess = rift_clt_open(&oa);
	if (IS_ERR(ts->sess)) {
		err = PTR_ERR(ts->sess);
		rift_test_sess_abort(ts);
		return err;
	}
	rift_clt_query(ts->sess, &attrs);
	ts->max_io_size = attrs.max_io_size;
	ts->dir = debugfs_create_dir(name, rift_test_dir);
	if (IS_ERR(ts->dir)) {
		err = PTR_ERR(ts->dir);
		rift_clt_close(ts->sess);
		rift_test_sess_abort(ts);
		return err;
	}
	debugfs_create_file("io", 0200, ts->dir, ts, &rift_test_io_fops);
	debugfs_create_file("last", 0400, ts->dir, ts, &rift_test_last_fops);
	debugfs_create_file("stats", 0400, ts->dir, ts, &rift_test_stats_fops);
	rift_test_debugfs_hooks(ts);
	mutex_lock(&rift_test_lock);
	ts->state = RIFT_TEST_LIVE;
	mutex_unlock(&rift_test_lock);
	return 0;
}

static ssize_t rift_test_open_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct rift_test_addrs *a;
	char *buf;
	int err;

	if (count > 1024)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	err = a ? rift_test_open_sess(buf, a) : -ENOMEM;
	kfree(a);
	kfree(buf);
	return err ? err : count;
}

static const struct file_operations rift_test_open_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rift_test_open_write,
	.llseek = noop_llseek,
};

static int __init rift_test_init(void)
{
	rift_test_dir = debugfs_create_dir("rift-test", NULL);
	debugfs_create_file("open", 0200, rift_test_dir, NULL, &rift_test_open_fops);
	debugfs_create_file("close", 0200, rift_test_dir, NULL, &rift_test_close_fops);
	debugfs_create_atomic_t("bad_completions", 0400, rift_test_dir,
				&rift_test_bad_completions);
	return 0;
}

/*
 * No file of ours is open (each holds a module reference), so no run or
 * open or close is going on: every session in the list is live.
 */
static void __exit rift_test_exit(void)
{
	struct rift_test_sess *ts, *tmp;

	list_for_each_entry_safe(ts, tmp, &rift_test_sessions, entry)
		rift_test_sess_close(ts);
	debugfs_remove_recursive(rift_test_dir);
}

module_init(rift_test_init);
module_exit(rift_test_exit);

MODULE_DESCRIPTION("Rift test ULP, client (testing only)");
MODULE_LICENSE("GPL");
