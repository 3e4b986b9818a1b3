// SPDX-License-Identifier: GPL-2.0
/*
 * Rift test ULP: a RAM-backed server and a client driven through debugfs,
 * so the kselftests can exercise the transport without a block device.
 * Testing only.
 *
 * Server (module parameter server=1): serves reads and writes of a
 * store_mb MiB RAM store on port srv_port.
 *
 * Client: /sys/kernel/debug/rift-test/
 *   open	write "sessname=S path=[SRC@]DST [path=...] [port=N]
 *		[queue_depth=N] [nr_cons=N]" to open session S
 *   S/io	write "write|read|verify OFFSET LEN SEED [COUNT [DEPTH]]":
 *		COUNT requests of LEN bytes at OFFSET, OFFSET+LEN, ...,
 *		DEPTH of them in flight; write fills a pattern derived from
 *		SEED and the offset, verify reads it back and compares.  The
 *		write(2) fails with the first error (-EILSEQ on a mismatch).
 *   S/last	result of the last io: "ops bytes usecs errors"
 *   close	write S to close session S
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/ktime.h>
#include <linux/inet.h>

#include <rift/rift.h>

#define RIFT_TEST_MAGIC		0x54534552U	/* "REST" */
#define RIFT_TEST_MAX_DEPTH	64

static bool server;
module_param(server, bool, 0444);
MODULE_PARM_DESC(server, "Serve the RAM store (default no)");

static ushort srv_port;
module_param(srv_port, ushort, 0444);
MODULE_PARM_DESC(srv_port, "Server port (default: Rift's default port)");

static uint store_mb = 16;
module_param(store_mb, uint, 0444);
MODULE_PARM_DESC(store_mb, "Size of the RAM store in MiB (default 16)");

/* ULP header of every request. */
struct rift_test_hdr {
	__le32	magic;
	__le32	len;
	__le64	offset;
};

/* Server. */

static struct rift_srv_ctx *rift_test_srv;
static void *rift_test_store;
static size_t rift_test_store_size;
static DEFINE_SPINLOCK(rift_test_store_lock);

static int rift_test_rdma_ev(void *priv, struct rift_srv_op *op,
			     enum rift_dir dir, void *data, size_t datalen,
			     const void *usr, size_t usrlen)
{
	struct rift_test_hdr hdr;
	u64 off;

	if (usrlen != sizeof(hdr))
		return -EBADMSG;
	/* For reads the header shares the chunk with the data: copy first. */
	memcpy(&hdr, usr, sizeof(hdr));
	off = le64_to_cpu(hdr.offset);
	if (le32_to_cpu(hdr.magic) != RIFT_TEST_MAGIC ||
	    le32_to_cpu(hdr.len) != datalen)
		return -EBADMSG;
	if (off > rift_test_store_size || datalen > rift_test_store_size - off)
		return -ERANGE;
	spin_lock(&rift_test_store_lock);
	if (dir == RIFT_WRITE)
		memcpy(rift_test_store + off, data, datalen);
	else
		memcpy(data, rift_test_store + off, datalen);
	spin_unlock(&rift_test_store_lock);
	rift_srv_resp(op, 0);
	return 0;
}

static int rift_test_link_ev(struct rift_srv_sess *sess,
			     enum rift_srv_link_ev ev, void *priv)
{
	char name[RIFT_NAME_MAX + 1];

	if (rift_srv_get_sess_name(sess, name, sizeof(name)) < 0)
		strscpy(name, "?", sizeof(name));
	pr_debug("session %s %s\n", name,
		 ev == RIFT_SRV_LINK_EV_CONNECTED ? "connected" : "disconnected");
	return 0;
}

static const struct rift_srv_ops rift_test_srv_ops = {
	.rdma_ev = rift_test_rdma_ev,
	.link_ev = rift_test_link_ev,
};

/* Client. */

struct rift_test_sess {
	struct list_head	entry;
	struct rift_clt_sess	*sess;
	struct dentry		*dir;
	char			name[RIFT_NAME_MAX + 1];
	struct mutex		io_lock;	/* one io run at a time */
	char			last[96];
};

struct rift_test_io {
	struct rift_test_sess	*ts;
	struct rift_permit	*permit;
	struct page		**pages;
	struct scatterlist	*sg;
	unsigned int		nr_pages;
	struct rift_test_hdr	hdr;
	u64			offset;
	u32			len;
	int			err;
	struct completion	done;
};

static struct dentry *rift_test_dir;
static LIST_HEAD(rift_test_sessions);
static DEFINE_MUTEX(rift_test_lock);

static u8 rift_test_pattern(u32 seed, u64 pos)
{
	u64 x = (pos >> 3) * 0x9e3779b97f4a7c15ULL ^ seed;

	return (u8)(x >> (8 * (pos & 7)) ^ (x >> 32));
}

static void rift_test_fill(struct rift_test_io *io, u32 seed)
{
	u32 i;

	for (i = 0; i < io->len; i++) {
		u8 *p = page_address(io->pages[i >> PAGE_SHIFT]);

		p[i & ~PAGE_MASK] = rift_test_pattern(seed, io->offset + i);
	}
}

static int rift_test_check(struct rift_test_io *io, u32 seed)
{
	u32 i;

	for (i = 0; i < io->len; i++) {
		u8 *p = page_address(io->pages[i >> PAGE_SHIFT]);
		u8 want = rift_test_pattern(seed, io->offset + i);

		if (p[i & ~PAGE_MASK] != want) {
			pr_err("verify: byte %llu is %02x, expected %02x\n",
			       io->offset + i, p[i & ~PAGE_MASK], want);
			return -EILSEQ;
		}
	}
	return 0;
}

static void rift_test_io_free(struct rift_test_io *io)
{
	unsigned int i;

	for (i = 0; i < io->nr_pages; i++)
		if (io->pages[i])
			__free_page(io->pages[i]);
	kfree(io->pages);
	kfree(io->sg);
}

static int rift_test_io_alloc(struct rift_test_io *io, u32 len)
{
	unsigned int i, nr = DIV_ROUND_UP(len, PAGE_SIZE);

	io->pages = kcalloc(nr, sizeof(*io->pages), GFP_KERNEL);
	io->sg = kcalloc(nr, sizeof(*io->sg), GFP_KERNEL);
	if (!io->pages || !io->sg)
		return -ENOMEM;
	io->nr_pages = nr;
	sg_init_table(io->sg, io->nr_pages);
	for (i = 0; i < io->nr_pages; i++) {
		io->pages[i] = alloc_page(GFP_KERNEL);
		if (!io->pages[i])
			return -ENOMEM;
		sg_set_page(&io->sg[i], io->pages[i],
			    min_t(u32, PAGE_SIZE, len - i * PAGE_SIZE), 0);
	}
	return 0;
}

static void rift_test_done(void *priv, int err)
{
	struct rift_test_io *io = priv;

	io->err = err;
	complete(&io->done);
}

static int rift_test_submit(struct rift_test_io *io, enum rift_dir dir)
{
	struct rift_clt_req_ops ops = { .priv = io, .done = rift_test_done };
	struct kvec usr = { .iov_base = &io->hdr, .iov_len = sizeof(io->hdr) };

	io->hdr.magic = cpu_to_le32(RIFT_TEST_MAGIC);
	io->hdr.len = cpu_to_le32(io->len);
	io->hdr.offset = cpu_to_le64(io->offset);
	reinit_completion(&io->done);
	io->err = 0;
	io->permit = rift_clt_get_permit(io->ts->sess, RIFT_PERMIT_WAIT);
	return rift_clt_request(io->ts->sess, dir, &ops, io->permit, &usr, 1,
				io->len, io->sg, io->nr_pages);
}

static int rift_test_wait(struct rift_test_io *io, bool verify, u32 seed)
{
	int err;

	wait_for_completion(&io->done);
	rift_clt_put_permit(io->ts->sess, io->permit);
	io->permit = NULL;
	err = io->err;
	if (!err && verify)
		err = rift_test_check(io, seed);
	return err;
}

static int rift_test_run(struct rift_test_sess *ts, const char *op, u64 offset,
			 u32 len, u32 seed, u32 count, u32 depth)
{
	bool write = !strcmp(op, "write");
	bool verify = !strcmp(op, "verify");
	struct rift_test_io *ios;
	u32 submitted = 0, done = 0, errors = 0, i;
	ktime_t start = ktime_get();
	int err = 0, e;

	if (!write && !verify && strcmp(op, "read"))
		return -EINVAL;
	if (!len || len > RIFT_CHUNK_SIZE_MAX || !count || !depth ||
	    depth > RIFT_TEST_MAX_DEPTH)
		return -EINVAL;
	depth = min(depth, count);
	ios = kcalloc(depth, sizeof(*ios), GFP_KERNEL);
	if (!ios)
		return -ENOMEM;
	for (i = 0; i < depth; i++) {
		ios[i].ts = ts;
		init_completion(&ios[i].done);
		err = rift_test_io_alloc(&ios[i], len);
		if (err)
			goto out;
	}
	/* Keep @depth requests in flight; request n uses slot n % depth. */
	while (done < count) {
		while (submitted < count && submitted - done < depth) {
			struct rift_test_io *io = &ios[submitted % depth];

			io->offset = offset + (u64)submitted * len;
			io->len = len;
			if (write)
				rift_test_fill(io, seed);
			e = rift_test_submit(io, write ? RIFT_WRITE : RIFT_READ);
			if (e) {
				rift_clt_put_permit(ts->sess, io->permit);
				err = err ? : e;
				count = submitted;
				break;
			}
			submitted++;
		}
		if (done == submitted)
			break;
		e = rift_test_wait(&ios[done % depth], verify, seed);
		if (e) {
			errors++;
			err = err ? : e;
		}
		done++;
	}
	snprintf(ts->last, sizeof(ts->last), "%u %llu %lld %u\n", done,
		 (u64)done * len, ktime_us_delta(ktime_get(), start), errors);
out:
	for (i = 0; i < depth; i++)
		rift_test_io_free(&ios[i]);
	kfree(ios);
	return err;
}

static ssize_t rift_test_io_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct rift_test_sess *ts = file->private_data;
	char buf[128], op[8];
	u32 len, seed, n = 1, depth = 1;
	u64 offset;
	int err;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%7s %llu %u %u %u %u", op, &offset, &len, &seed, &n,
		   &depth) < 4)
		return -EINVAL;
	mutex_lock(&ts->io_lock);
	err = rift_test_run(ts, op, offset, len, seed, n, depth);
	mutex_unlock(&ts->io_lock);
	return err ? err : count;
}

static const struct file_operations rift_test_io_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = rift_test_io_write,
	.llseek = noop_llseek,
};

static ssize_t rift_test_last_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct rift_test_sess *ts = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, ts->last,
				       strlen(ts->last));
}

static const struct file_operations rift_test_last_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = rift_test_last_read,
	.llseek = default_llseek,
};

static void rift_test_sess_close(struct rift_test_sess *ts)
{
	debugfs_remove_recursive(ts->dir);
	rift_clt_close(ts->sess);
	kfree(ts);
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

	if (count >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, count))
		return -EFAULT;
	name[count] = '\0';
	len = strcspn(name, "\n");
	name[len] = '\0';

	mutex_lock(&rift_test_lock);
	list_for_each_entry(ts, &rift_test_sessions, entry) {
		if (!strcmp(ts->name, name)) {
			list_del(&ts->entry);
			found = ts;
			break;
		}
	}
	mutex_unlock(&rift_test_lock);
	if (!found)
		return -ENOENT;
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

static int rift_test_open_sess(char *args, struct rift_test_addrs *a)
{
	struct rift_clt_open_args oa = {};
	struct rift_test_sess *ts;
	char *tok, *val, *path_str[RIFT_TEST_MAX_PATHS], name[RIFT_NAME_MAX + 1] = "";
	unsigned int v, i, nr_paths = 0;
	int err;

	while ((tok = strsep(&args, "\n "))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "sessname")) {
			if (strscpy(name, val, sizeof(name)) < 0)
				return -EINVAL;
		} else if (!strcmp(tok, "path")) {
			if (nr_paths == RIFT_TEST_MAX_PATHS)
				return -E2BIG;
			path_str[nr_paths++] = val;
		} else if (!strcmp(tok, "port")) {
			if (kstrtou16(val, 0, &oa.port))
				return -EINVAL;
		} else if (!strcmp(tok, "queue_depth") && !kstrtouint(val, 0, &v) &&
			   v <= RIFT_MAX_QUEUE_DEPTH) {
			oa.queue_depth = v;
		} else if (!strcmp(tok, "nr_cons") && !kstrtouint(val, 0, &v) &&
			   v <= RIFT_MAX_CONS) {
			oa.nr_cons = v;
		} else {
			return -EINVAL;
		}
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
	mutex_init(&ts->io_lock);
	strscpy(ts->name, name, sizeof(ts->name));
	oa.sessname = name;
	oa.paths = a->paths;
	oa.nr_paths = nr_paths;
	ts->sess = rift_clt_open(&oa);
	if (IS_ERR(ts->sess)) {
		err = PTR_ERR(ts->sess);
		kfree(ts);
		return err;
	}
	ts->dir = debugfs_create_dir(name, rift_test_dir);
	debugfs_create_file("io", 0200, ts->dir, ts, &rift_test_io_fops);
	debugfs_create_file("last", 0400, ts->dir, ts, &rift_test_last_fops);
	mutex_lock(&rift_test_lock);
	list_add(&ts->entry, &rift_test_sessions);
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
	int err;

	if (server) {
		rift_test_store_size = (size_t)store_mb << 20;
		rift_test_store = vzalloc(rift_test_store_size);
		if (!rift_test_store)
			return -ENOMEM;
		rift_test_srv = rift_srv_open(&rift_test_srv_ops, NULL, srv_port);
		if (IS_ERR(rift_test_srv)) {
			err = PTR_ERR(rift_test_srv);
			pr_err("cannot open the server on port %u: %d\n", srv_port, err);
			vfree(rift_test_store);
			return err;
		}
	}
	rift_test_dir = debugfs_create_dir("rift-test", NULL);
	debugfs_create_file("open", 0200, rift_test_dir, NULL, &rift_test_open_fops);
	debugfs_create_file("close", 0200, rift_test_dir, NULL, &rift_test_close_fops);
	return 0;
}

static void __exit rift_test_exit(void)
{
	struct rift_test_sess *ts, *tmp;

	debugfs_remove_recursive(rift_test_dir);
	list_for_each_entry_safe(ts, tmp, &rift_test_sessions, entry) {
		list_del(&ts->entry);
		rift_test_sess_close(ts);
	}
	if (rift_test_srv) {
		rift_srv_close(rift_test_srv);
		vfree(rift_test_store);
	}
}

module_init(rift_test_init);
module_exit(rift_test_exit);

MODULE_DESCRIPTION("Rift test ULP (testing only)");
MODULE_LICENSE("GPL");
