// SPDX-License-Identifier: GPL-2.0
/*
 * The riftblk codec, built into this module: each riftblk module carries
 * its own copy so neither depends on the other.
 */
#include "riftblk-proto.c"
