# SPDX-License-Identifier: GPL-2.0
# AF_SPRAY: top-level build.
#
#   make                 module for $(KVER) + userspace tools + selftests
#   make modules-all     the module for every kernel of the matrix ($(KVERS))
#   make W=1 / make check (sparse) / make style (checkpatch --strict)
#   make kdoc            kernel-doc -Wall over the module and the uapi header
#   make install         module (+ depmod), uapi header, tools, libfabric provider
#   make test            everything, in the VM, on every kernel of the matrix
#   make demo            the main job: a VM that shows AF_SPRAY working
#   make bench           benchmarks against TCP, MPTCP, RoCEv2 and UDP (build/bench)
#   make fuzz            libFuzzer harnesses of the protocol core, FUZZ_TIME s each
#   make debug-kernel    Debian's 6.1 with KASAN, lockdep, kmemleak (cached)
#   make test-debug      the selftests on it in the VM, then a kmemleak check
#
# The host kernel cannot load modules: see scripts/vm.sh.

KVERS	?= $(shell scripts/kver.sh)
KVER	?= $(shell scripts/kver.sh --default)
KDIR	?= /lib/modules/$(KVER)/build
KSRC	?= /var/cache/spray/linux-source-6.12
BUILD	:= build/$(KVER)
W	?=
PREFIX	?= /usr/local
DESTDIR	?=

# Copy the sources into build/KVER, only those whose content changed: a
# copy keeps a fresh time stamp so kbuild never trusts an object compiled
# from an older copy. Sources that moved or went are removed from the copy
# (a stale header there would shadow the real one).
SYNC = mkdir -p $(BUILD) && for f in Kbuild $$(find kernel include -type f); do \
	d=$(BUILD)/$$f; mkdir -p $$(dirname $$d); cmp -s $$f $$d || cp $$f $$d; done; \
	for d in $$(cd $(BUILD) && find kernel include -name '*.[ch]' 2>/dev/null); do \
	[ -e $$d ] || rm -f $(BUILD)/$$d $(BUILD)/$${d%.[ch]}.o; done

KERNEL_SRCS := Kbuild $(wildcard kernel/*.c kernel/*.h kernel/core/*.c kernel/core/*.h include/uapi/linux/*.h include/trace/events/*.h)

.PHONY: all module modules-all tools selftests unit check kdoc style install \
	uninstall test demo bench debug-kernel test-debug fuzz clean FORCE

all: module tools selftests

# Out-of-tree builds for two kernels cannot share object files: each kernel
# gets its own copy of the sources in build/KVER/.
$(BUILD)/spray.ko: $(KERNEL_SRCS) FORCE
	@$(SYNC)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD) W=$(W) modules

module: $(BUILD)/spray.ko

modules-all:
	@set -e; for k in $(KVERS); do $(MAKE) --no-print-directory KVER=$$k module; done

tools:
	$(MAKE) -C userspace/sprayctl
	@if [ -d userspace/spraycoll ]; then $(MAKE) -C userspace/spraycoll; fi
	@if [ -d userspace/libfabric ]; then $(MAKE) -C userspace/libfabric; fi

selftests:
	$(MAKE) -C selftests KSRC=$(KSRC)

unit:
	@if [ -d selftests/unit ]; then $(MAKE) -C selftests/unit; fi
	@if [ -d userspace/libfabric ]; then $(MAKE) -C userspace/libfabric unit; fi

# sparse over every file, warnings are errors for us.
check:
	@$(SYNC)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD) C=2 CHECK=sparse W=1 modules 2>&1 | \
		tee $(BUILD)/check.log
	@! grep -E "warning:|error:" $(BUILD)/check.log

# kernel-doc over the module and the uapi header: every comment that
# says it is kernel-doc describes every member (scripts/test.sh runs it)
kdoc:
	@out=$$($(KSRC)/scripts/kernel-doc -none -Wall kernel/*.c kernel/*.h \
		kernel/core/*.c kernel/core/*.h include/uapi/linux/spray.h 2>&1); \
		echo "$$out"; [ -z "$$out" ]

# BIT_MACRO: (1U << n) sizes and limits stay unsigned int; BIT() is
# for masks and makes them unsigned long. netlink-gen.[ch] are generated
# (scripts/ynl-gen.sh). core_user.h stands in for kernel headers in
# userspace: see its comment for what it is allowed.
STYLE_IGNORE := FILE_PATH_CHANGES,SPDX_LICENSE_TAG,BIT_MACRO
style:
	$(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		--ignore $(STYLE_IGNORE) \
		-f $(filter-out kernel/netlink-gen.% kernel/core/core_user.h,$(wildcard kernel/*.c kernel/*.h kernel/core/*.c kernel/core/*.h)) \
		include/uapi/linux/spray.h
	$(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		--ignore $(STYLE_IGNORE),PREFER_KERNEL_TYPES,MACRO_ARG_REUSE,CAMELCASE,PREFER_DEFINED_ATTRIBUTE_MACRO \
		-f kernel/core/core_user.h
	@# TRACE_EVENT()'s own layout (open-ended lines, field lists in
	@# macros), as in every trace header of the kernel
	$(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT,COMPLEX_MACRO \
		-f include/trace/events/spray.h
	@# a selftest's check asserts one command, not an && list
	awk -f scripts/check-asserts.awk selftests/*.sh

install: module tools
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(BUILD) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)
	install -D -m 0644 include/uapi/linux/spray.h $(DESTDIR)$(PREFIX)/include/linux/spray.h
	install -D -m 0644 include/uapi/linux/spray_netlink.h $(DESTDIR)$(PREFIX)/include/linux/spray_netlink.h
	install -D -m 0755 userspace/sprayctl/sprayctl $(DESTDIR)$(PREFIX)/sbin/sprayctl
	install -D -m 0755 userspace/spraycoll/spraycoll $(DESTDIR)$(PREFIX)/bin/spraycoll
	install -D -m 0644 userspace/sprayctl/sprayctl.8 $(DESTDIR)$(PREFIX)/share/man/man8/sprayctl.8
	install -D -m 0644 userspace/spraycoll/spraycoll.1 $(DESTDIR)$(PREFIX)/share/man/man1/spraycoll.1
	install -D -m 0644 Documentation/man/spray.7 $(DESTDIR)$(PREFIX)/share/man/man7/spray.7
	$(MAKE) -C userspace/libfabric install
	install -D -m 0644 Documentation/man/fi_spray.7 $(DESTDIR)$(PREFIX)/share/man/man7/fi_spray.7
	install -D -m 0644 userspace/sprayctl/sprayctl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/sprayctl

uninstall:
	rm -f /lib/modules/$(KVER)/updates/spray.ko* $(DESTDIR)$(PREFIX)/include/linux/spray.h \
		$(DESTDIR)$(PREFIX)/include/linux/spray_netlink.h $(DESTDIR)$(PREFIX)/sbin/sprayctl \
		$(DESTDIR)$(PREFIX)/bin/spraycoll $(DESTDIR)$(PREFIX)/share/man/man8/sprayctl.8 \
		$(DESTDIR)$(PREFIX)/share/man/man1/spraycoll.1 $(DESTDIR)$(PREFIX)/share/man/man7/spray.7 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/sprayctl \
		$(DESTDIR)$(PREFIX)/share/man/man7/fi_spray.7
	$(MAKE) -C userspace/libfabric uninstall
	depmod -a $(KVER)

test:
	scripts/test.sh

demo:
	scripts/demo.sh

# Benchmark suite on a leaf-spine fabric in the VM, 3 boots (about 35 min;
# Documentation/performance.rst); BENCH=quick: one boot, about 10 min;
# BENCH="ring loss" picks scenarios; BOOTS=N boots.
bench:
	scripts/bench/run.sh -k $(KVER) $(BENCH)

# Documentation/networking/spray-debug.rst; TESTS="netns.sh ..." runs a subset.
debug-kernel:
	scripts/debug-kernel.sh

test-debug:
	scripts/debug-kernel.sh --test $(TESTS)

# Documentation/networking/spray-fuzz.rst; FUZZ_TIME=600 by default
fuzz:
	$(MAKE) -C selftests/fuzz run

clean:
	rm -rf build
	$(MAKE) -C selftests clean
	$(MAKE) -C userspace/sprayctl clean
	$(MAKE) -C userspace/lib clean
	@if [ -d userspace/spraycoll ]; then $(MAKE) -C userspace/spraycoll clean; fi
	@if [ -d userspace/libfabric ]; then $(MAKE) -C userspace/libfabric clean; fi
	@if [ -d selftests/unit ]; then $(MAKE) -C selftests/unit clean; fi
	@if [ -d selftests/fuzz ]; then $(MAKE) -C selftests/fuzz clean; fi
