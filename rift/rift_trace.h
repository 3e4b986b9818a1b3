/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rift tracepoints shared by both roles: every state change of every
 * state machine (client paths; server sessions, paths and connections).
 * Enable with echo 1 > /sys/kernel/tracing/events/rift/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rift

#if !defined(_RIFT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RIFT_TRACE_H

#include <linux/tracepoint.h>
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

#endif /* _RIFT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rift_trace
#include <trace/define_trace.h>
