// SPDX-License-Identifier: GPL-2.0
/*
 * Rift: the state machines' common part, and the home of the tracepoints
 * both roles share (rift_trace.h).  Each object (client path,
 * server session, path, connection) keeps its own states, names and
 * transition table, and its own lock; this checks a transition against
 * the table and traces it, the same way for every machine of both roles.
 */
#include <linux/module.h>

#include "rift-core.h"

#define CREATE_TRACE_POINTS
#include "rift_trace.h"

/* Fired by the roles themselves, defined once here. */
EXPORT_TRACEPOINT_SYMBOL_GPL(rift_con_event);
EXPORT_TRACEPOINT_SYMBOL_GPL(rift_hb_tick);
EXPORT_TRACEPOINT_SYMBOL_GPL(rift_path_error);

/**
 * rift_sm_state_str() - name of a state
 * @sm: state machine
 * @s: state
 *
 * Return: the name, or "invalid" for a value outside the machine.
 */
const char *rift_sm_state_str(const struct rift_sm *sm, unsigned int s)
{
	return s < sm->nr ? sm->names[s] : "invalid";
}
EXPORT_SYMBOL_GPL(rift_sm_state_str);

/**
 * rift_sm_change() - check and trace a state change
 * @sm: state machine
 * @old: current state
 * @new: wanted state
 * @sess: session name, for the trace
 * @obj: the object's name in the session (a path's), for the trace
 *
 * The caller holds the object's state lock (and asserts it) and stores
 * @new itself when this allows it.  A refused transition is how the
 * second of two concurrent failure reports loses to the first: it is not
 * an error, and is not traced.
 *
 * Return: true if @old may change to @new (and the change was traced).
 */
bool rift_sm_change(const struct rift_sm *sm, unsigned int old,
		    unsigned int new, const char *sess, const char *obj)
{
	if (old >= sm->nr || new >= sm->nr || !(sm->next[old] & BIT(new)))
		return false;
	trace_rift_state(sm->name, sess, obj, sm->names[old], sm->names[new]);
	return true;
}
EXPORT_SYMBOL_GPL(rift_sm_change);
