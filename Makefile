# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of Rift against installed kernel headers.
#
#   make               build every module (KDIR defaults to the newest
#                      Debian headers that also have a bootable image)
#                      and the riftctl tool (tools/riftctl, user space)
#   make check         every test: unit, fuzz, W=1, sparse, checkpatch,
#                      kernel-doc, then the VM selftests
#   make check-long    the long variants of the tests make check runs
#                      shorter (100 riftblk map/unmap cycles, 50 RDMA
#                      device removals, 200 session cycles, 20000 stress
#                      requests, a 150 s flood, 50 export cycles;
#                      RIFT_LONG=1) and the second runs make check
#                      leaves out (LONG_TEST_PROGS in selftests/Makefile:
#                      failover and always_invalidate with credits off),
#                      T= for others
#   make check-debug   every VM selftest on the sanitizer kernel (KASAN,
#                      KFENCE, UBSAN, lockdep, kmemleak; tools/debug-kernel.sh
#                      builds it once, about an hour)
#   make demo          boot a VM over Soft-RoCE and show Rift at work
#   make bench         fio/perftest numbers: riftblk vs nvme-rdma, RNBD and
#                      the raw verbs limit, in one VM (never pass/fail)
#   make bench-idle63  memory credits: one busy riftblk session's 4k QD32
#                      IOPS and p99 beside 63 idle sessions and alone, the
#                      idle paths' held_bytes, in one VM (never pass/fail;
#                      BENCH_PEERS=rift-idle63 make bench)
#   make check-612     build warning-free (W=1, sparse) for Debian's
#                      Linux 6.12 and run the transport and riftblk_io
#                      selftests on it (T= for others; tools/kernel-612.sh
#                      fetches it, about 125 MB, and installs it for the VM)
#   make selftest T=x  run one selftest in the VM (developer loop);
#                      RIFT_KERNEL=debug boots the sanitizer kernel,
#                      RIFT_KERNEL=612 Debian's 6.12 (after make check-612)
#   make soak          riftblk under fio verify while links flap, go silent
#                      and the server reloads, SOAK_MIN minutes (30); then
#                      while the server VM is killed and replaced,
#                      SOAK_KILL_MIN minutes (SOAK_MIN / 3, at least 5)
#   make check-packages  build the rift-dkms and riftctl .debs, lint them,
#                      install them here, check DKMS built the modules for
#                      KVER, purge them (root; tools/test-packages.sh)
#   make install       modules_install + depmod, and riftctl with its man
#                      page and bash completion under PREFIX (/usr/local)

# RIFT_KERNEL=debug: build for the sanitizer kernel (tools/debug-kernel.sh).
ifeq ($(RIFT_KERNEL),debug)
KVER ?= $(shell $(CURDIR)/tools/debug-kernel.sh --kver 2>/dev/null)
endif
# RIFT_KERNEL=612: build for Debian's 6.12, its headers in the cache of
# tools/kernel-612.sh (installed or not).
ifeq ($(RIFT_KERNEL),612)
KVER ?= $(shell $(CURDIR)/tools/kernel-612.sh --kver 2>/dev/null)
KDIR ?= $(shell $(CURDIR)/tools/kernel-612.sh --kdir 2>/dev/null)
endif
KVER ?= $(shell $(CURDIR)/tools/kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build

# The tree is laid out like drivers/: Kconfig symbols select the objects.
# Out of tree there is no .config, so every module is built as =m here.
# RIFT_TEST= leaves out the test ULP and RIFT_DEBUG= the client's test
# hooks (CONFIG_RIFT_DEBUG): packages do both (dkms.conf), and so does
# `make install`.  The selftests need both, so a developer's `make`
# builds them.
RIFT_TEST ?= m
RIFT_DEBUG ?= y
# Recursive (=): `make install` sets both empty for itself.
RIFT_CONFIG = CONFIG_RIFT=m CONFIG_RIFT_CLIENT=m CONFIG_RIFT_SERVER=m \
	       CONFIG_RIFT_DEBUG=$(RIFT_DEBUG) CONFIG_RIFT_TEST=$(RIFT_TEST) \
	       CONFIG_RIFTBLK_COMMON=m CONFIG_RIFTBLK_CLIENT=m CONFIG_RIFTBLK_SERVER=m

KMAKE = $(MAKE) -C $(KDIR) M=$(CURDIR) $(RIFT_CONFIG)

.PHONY: all modules riftctl deps check check-long check-debug check-612 check-packages debug-kernel demo bench bench-idle63 selftest unit fuzz install clean clean-modules soak help

all: modules riftctl

# '+': the kernel's make gets the jobserver of a parallel build (make -j);
# a recipe that names $(MAKE) only through KMAKE is not seen as one.
modules: kdir
	+$(KMAKE) modules

riftctl:
	$(MAKE) -C tools/riftctl

.PHONY: kdir
kdir:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "rift: no kernel headers at '$(KDIR)'; installing dependencies"; \
		$(CURDIR)/tools/deps.sh || exit 1; \
		kv=$$($(CURDIR)/tools/kver.sh) && \
		[ -f /lib/modules/$$kv/build/Makefile ] || \
		{ echo "rift: still no kernel headers; set KDIR=" >&2; exit 1; }; \
	fi

deps:
	$(CURDIR)/tools/deps.sh

check:
	$(CURDIR)/tools/check.sh

# Tests whose loops RIFT_LONG=1 lengthens, and the second runs make check
# leaves out; T= runs others the same way.
LONG_TESTS ?= riftblk_cycles device_removal transport_cycles transport_stress flood riftblk_exports \
	      $(shell bash -c ". $(CURDIR)/tools/vm/testmeta.sh && testmeta_list $(CURDIR)/selftests/Makefile LONG_TEST_PROGS")
check-long:
	RIFT_LONG=1 $(CURDIR)/tools/vm/run-selftests.sh $(or $(T),$(LONG_TESTS))

check-debug:
	$(CURDIR)/tools/check-debug.sh

check-612:
	$(CURDIR)/tools/check-612.sh $(T)

debug-kernel:
	$(CURDIR)/tools/debug-kernel.sh

check-packages:
	$(CURDIR)/tools/test-packages.sh

demo:
	$(CURDIR)/tools/demo.sh

bench:
	$(CURDIR)/tools/bench/bench.sh

bench-idle63:
	BENCH_PEERS=rift-idle63 $(CURDIR)/tools/bench/bench.sh

soak:
	$(CURDIR)/tools/soak.sh "$(SOAK_MIN)" "$(SOAK_KILL_MIN)"

selftest:
	@[ -n "$(T)" ] || { echo "usage: make selftest T=<name>" >&2; exit 2; }
	$(CURDIR)/tools/vm/run-selftests.sh $(T)

unit:
	$(MAKE) -C tools/unit run

fuzz:
	$(MAKE) -C tools/fuzz run

# What gets installed is a production build: no test ULP, no test hooks.
install: RIFT_TEST :=
install: RIFT_DEBUG :=
install: modules riftctl
	$(KMAKE) modules_install
	depmod -a $(KVER)
	$(MAKE) -C tools/riftctl install

# Only the kernel objects: the VM harness switches kernels with this and
# must not delete build/, where make check keeps the logs it is writing.
clean-modules:
	-[ -f "$(KDIR)/Makefile" ] && $(KMAKE) clean

clean: clean-modules
	-$(MAKE) -C tools/unit clean
	-$(MAKE) -C tools/fuzz clean
	-$(MAKE) -C tools/riftctl clean
	rm -rf build
