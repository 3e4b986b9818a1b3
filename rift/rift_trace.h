/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift tracepoints shared by both roles: every state change of every
 * state machine (client paths; server sessions, paths and connections),
 * every rdma_cm event of a path's connection and every heartbeat tick of
 * a path.  Defined once in rift-core (rift-core-sm.c), fired by either
 * role, which names itself in the event.
 * Enable with echo 1 > /sys/kernel/tracing/events/rift/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rift

#if !defined(_RIFT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RIFT_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/rdma_cm.h>
#include <rift/rift-compat.h>

TRACE_EVENT(rift_state,
	    TP_PROTO(const char *machine, const char *sess, const char *obj,
		     const char *from, const char *to),
	    TP_ARGS(machine, sess, obj, from, to),
	    TP_STRUCT__entry(__string(machine, machine)
			     __string(sess, sess)
			     __string(obj, obj)
			     __string(from, from)
			     __string(to, to)),
	    TP_fast_assign(rift_assign_str(machine, machine);
			   rift_assign_str(sess, sess);
			   rift_assign_str(obj, obj);
			   rift_assign_str(from, from);
			   rift_assign_str(to, to);),
	    TP_printk("%s %s/%s: %s -> %s", __get_str(machine), __get_str(sess),
		      __get_str(obj), __get_str(from), __get_str(to))
);

TRACE_EVENT(rift_con_event,
	    TP_PROTO(const char *role, const char *sess, const char *path, u16 con,
		     int event, int status),
	    TP_ARGS(role, sess, path, con, event, status),
	    TP_STRUCT__entry(__string(role, role)
			     __string(sess, sess)
			     __string(path, path)
			     __field(u16, con)
			     __field(int, event)
			     __string(msg, rdma_event_msg(event))
			     __field(int, status)),
	    TP_fast_assign(rift_assign_str(role, role);
			   rift_assign_str(sess, sess);
			   rift_assign_str(path, path);
			   __entry->con = con;
			   __entry->event = event;
			   rift_assign_str(msg, rdma_event_msg(event));
			   __entry->status = status;),
	    /* The name is copied: the trace buffer outlives ib_core's strings. */
	    TP_printk("%s %s/%s con %u: %s (%d)", __get_str(role), __get_str(sess),
		      __get_str(path), __entry->con, __get_str(msg),
		      __entry->status)
);

/*
 * Why a server path failed: its last_error as set, which, unlike the log
 * line, is not rate-limited, so a peer's violation can be told from
 * another however many came before (rift-peer's cases read it).
 */
TRACE_EVENT(rift_path_error,
	    TP_PROTO(const char *role, const char *sess, const char *path,
		     const char *reason),
	    TP_ARGS(role, sess, path, reason),
	    TP_STRUCT__entry(__string(role, role)
			     __string(sess, sess)
			     __string(path, path)
			     __string(reason, reason)),
	    TP_fast_assign(rift_assign_str(role, role);
			   rift_assign_str(sess, sess);
			   rift_assign_str(path, path);
			   rift_assign_str(reason, reason);),
	    TP_printk("%s %s/%s: %s", __get_str(role), __get_str(sess),
		      __get_str(path), __get_str(reason))
);

TRACE_EVENT(rift_hb_tick,
	    TP_PROTO(const char *role, const char *sess, const char *path,
		     u32 missed, u32 late_ms),
	    TP_ARGS(role, sess, path, missed, late_ms),
	    TP_STRUCT__entry(__string(role, role)
			     __string(sess, sess)
			     __string(path, path)
			     __field(u32, missed)
			     __field(u32, late_ms)),
	    TP_fast_assign(rift_assign_str(role, role);
			   rift_assign_str(sess, sess);
			   rift_assign_str(path, path);
			   __entry->missed = missed;
			   __entry->late_ms = late_ms;),
	    /* late_ms: how far the tick ran behind its deadline. */
	    TP_printk("%s %s/%s: heartbeat tick, %u silent, %u ms late",
		      __get_str(role), __get_str(sess), __get_str(path),
		      __entry->missed, __entry->late_ms)
);

#endif /* _RIFT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rift_trace
#include <trace/define_trace.h>
