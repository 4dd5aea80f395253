#!/bin/bash
# Boot a Debian kernel under QEMU (TCG) with the host's root filesystem shared
# read-only over 9p, run one command in the repository inside it, and power
# off. The host kernel here cannot load modules; this is where spray.ko runs.
#
#   scripts/vm.sh [-k KVER] [-o OUTDIR] [-m MEM] [-t TIMEOUT] -- CMD [ARGS]
#
# KVER is an installed Debian kernel (/boot/vmlinuz-KVER) or the release of
# a debug kernel built by scripts/debug-kernel.sh.
# Inside the VM: the same paths as on the host (read-only), tmpfs on /tmp,
# /run, /var/tmp and /root, OUTDIR (read-write, shared with the host) mounted
# at /mnt/out, and $SPRAY_OUT pointing at it. The command's exit status is
# this script's; the console goes to OUTDIR/console.log and to stdout.
# Every run starts from a fresh initramfs and a fresh tmpfs: no state leaks
# between runs.
#
# SPRAY_VM_ICOUNT=OPTS (unset: off) runs QEMU with "-icount OPTS", e.g.
# shift=0,sleep=off: the guest's clocks count executed instructions (2^shift
# ns each) and skip idle time, so guest times (goodput, CPU ns per byte) no
# longer depend on the host's load: the same module measures the same
# within 0.5% from run to run, loaded host or not. They then measure
# instructions, not the emulator's time: what TCG makes expensive (I/O,
# APIC, helpers) costs one instruction, and the TCP/AF_SPRAY relation is
# not the one plain TCG shows. It implies single-threaded TCG; guest
# timestamps run ahead of the wall clock. Known trouble: 6.1 never brings
# CPU 1 up at boot with a fixed shift (boot with maxcpus=1 and online it
# later, as scripts/bench/ab.sh does), and guests died of a garbage
# EFLAGS right after SLUB's cmpxchg16b (3 boots in about 35 here, QEMU
# 7.2): the vCPU then goes without cmpxchg16b (SLUB takes its lock).
# SPRAY_VM_APPEND=ARGS adds kernel arguments (e.g. maxcpus=1).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
KVER=$("$here/scripts/kver.sh" --default)
# Multi-threaded TCG runs the two vCPUs at once, and does not make live
# kernel-text patching safe: a static key flipped (timestamping turned on by
# ping, a tc hook, a tracepoint) while the other vCPU runs that code dies
# with "Oops: int3". Single-threaded TCG runs one vCPU at a time: immune.
# SPRAY_TCG_THREAD=multi chooses speed over that (benchmarks).
TCG_THREAD=${SPRAY_TCG_THREAD:-single}
# The vCPU model, for QEMU's -cpu. With ERMS (max has it) the kernel copies
# to and from user space, clears pages and sets memory with "rep movsb" and
# "rep stosb", which TCG runs a byte at a time: a bulk transfer's copies
# then cost about four times what they do with "rep movsq" (max,-erms) and
# vary most between runs. The benchmarks choose max,-erms
# (Documentation/performance.rst, "Copies under TCG"); the tests run on max.
CPU=${SPRAY_VM_CPU:-max}
# SPRAY_VM_ICOUNT, SPRAY_VM_APPEND: see above. icount needs single-threaded
# TCG: it overrides SPRAY_TCG_THREAD.
ICOUNT=${SPRAY_VM_ICOUNT:-}
APPEND=${SPRAY_VM_APPEND:-}
icount=()
if [ -n "$ICOUNT" ]; then
	icount=(-icount "$ICOUNT")
	TCG_THREAD=single
	case $CPU in *cx16*) ;; *) CPU=$CPU,-cx16 ;; esac
fi
OUT=
MEM=2G
TIMEOUT=1800
while getopts "k:o:m:t:" o; do
	case $o in
	k) KVER=$OPTARG ;;
	o) OUT=$OPTARG ;;
	m) MEM=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 [-k KVER] [-o OUTDIR] -- CMD" >&2; exit 2; }

kernel=/boot/vmlinuz-$KVER
# A debug kernel from scripts/debug-kernel.sh (KVER = its release): its
# cached image, and everything the VM needs is built in.
debug=${SPRAY_DEBUG_KERNEL_CACHE:-/var/cache/spray/debug-kernel}/$KVER
if [ ! -r "$kernel" ] && [ -f "$debug/.spray-done" ]; then
	kernel=$debug/arch/x86/boot/bzImage
else
	debug=
fi
[ -r "$kernel" ] || { echo "vm: no $kernel (install linux-image for $KVER, or scripts/debug-kernel.sh)" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/spray-vm.XXXXXX)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT/rc" "$OUT/console.log"

# The initramfs: busybox, the modules that mount 9p (decompressed: busybox
# insmod reads plain .ko) and /init. Rebuilt when this script changes.
cache=${SPRAY_VM_CACHE:-/var/cache/spray/vm}
initrd=$cache/initrd-$KVER.cpio.gz
if [ ! -s "$initrd" ] || [ "$initrd" -ot "$0" ]; then
	mkdir -p "$cache"
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root"/{bin,dev,proc,sys,newroot,mods}
	cp /usr/bin/busybox "$root/bin/busybox"
	for a in sh mount umount insmod mkdir chroot switch_root poweroff echo cat sleep ls; do
		ln -s busybox "$root/bin/$a"
	done
	n=0
	for m in virtio_pci 9pnet_virtio 9p; do
		[ -n "$debug" ] ||
			modprobe -S "$KVER" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r ko; do
		n=$((n + 1))
		dst=$root/mods/$(printf %02d $n)-$(basename "${ko%.xz}")
		dst=${dst%.zst}
		case $ko in
		*.xz) xz -dc "$ko" >"$dst" ;;
		*.zst) zstd -qdc "$ko" >"$dst" ;;
		*) cp "$ko" "$dst" ;;
		esac
	done
	cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in /mods/*.ko; do insmod "$m" 2>/dev/null; done
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /newroot; then
	echo "vm-init: cannot mount the host root over 9p"; poweroff -f
fi
for d in tmp run var/tmp root; do mount -t tmpfs tmpfs /newroot/$d; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /newroot/mnt
umount /proc /sys /dev
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t devtmpfs dev /newroot/dev
# switch_root, not chroot: a chrooted process may not create user
# namespaces, and the tests need them.
exec switch_root /newroot /bin/sh /mnt/.vm-run
INIT
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp.$$"
	mv "$initrd.tmp.$$" "$initrd"
	rm -rf "$root"
	trap - EXIT
fi

# The command runs from the repository, with the usual PATH, and its exit
# status lands in OUTDIR/rc. The guest kernel log is saved for the checks.
{
	echo '#!/bin/sh'
	echo 'mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts && mount -t tmpfs tmpfs /dev/shm'
	echo 'mount -t debugfs none /sys/kernel/debug 2>/dev/null'
	echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root'
	echo 'export SPRAY_OUT=/mnt SPRAY_IN_VM=1 TERM=dumb'
	printf 'export SPRAY_KVER=%q\n' "$KVER"
	echo 'ip link set lo up'
	echo ': > /mnt/started'
	# A repository under a path the guest covers with tmpfs (/tmp, ...)
	# comes in through its own share.
	printf 'if [ ! -d %q ]; then mkdir -p %q && mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 repo %q; fi\n' "$here" "$here" "$here"
	printf 'cd %q\n' "$here"
	printf '%q ' "$@"; echo
	echo 'echo $? > /mnt/rc'
	echo 'dmesg > /mnt/dmesg.log; cat /proc/sys/kernel/tainted > /mnt/tainted'
	# wait for the power-off in the shell itself: the 9p root (and with
	# it /bin/sleep) may be gone before it completes
	echo 'sync; echo o > /proc/sysrq-trigger; while :; do :; done'
} >"$OUT/.vm-run"

# tsc=unstable: under TCG the vCPUs' TSCs are not kept in step, and a
# guest that keeps time by them can see it jump (seen on 6.12: 487,000 s
# forward in one read, then RCU stall reports and every timeout fired).
# 6.1 finds them unsynchronized itself and keeps time by the HPET; this
# makes every kernel of the matrix do so.
# A guest that dies before the command starts (seen: an int3 oops in the
# boot's code patching under TCG, 1 boot in tens) is booted again, twice at
# most, unless it timed out; once the command runs, its result stands.
[ -z "$ICOUNT" ] || echo "vm: -icount $ICOUNT, vCPU $CPU" >&2
boot=1
while :; do
rm -f "$OUT/started"
set +e
timeout --foreground "$TIMEOUT" qemu-system-x86_64 \
	-accel "tcg,thread=$TCG_THREAD" "${icount[@]}" -machine q35 -cpu "$CPU" -smp 2 -m "$MEM" \
	-nographic -no-reboot -nodefaults -serial stdio \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4 quiet mitigations=off tsc=unstable${APPEND:+ $APPEND}" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$OUT,mount_tag=out,security_model=none" \
	-virtfs "local,path=$here,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
	-device virtio-rng-pci \
	</dev/null 2>&1 | tee "$OUT/console.log"
qrc=${PIPESTATUS[0]}
set -e
[ ! -f "$OUT/started" ] && [ ! -f "$OUT/rc" ] && [ "$qrc" != 124 ] &&
	[ "$boot" -lt 3 ] || break
echo "vm: the guest died before the command started (boot $boot); booting again" >&2
cp "$OUT/console.log" "$OUT/console-boot$boot.log"
boot=$((boot + 1))
done
if [ ! -f "$OUT/rc" ]; then
	echo "vm: the VM ended without a result (qemu status $qrc); log: $OUT/console.log" >&2
	exit 125
fi
exit "$(cat "$OUT/rc")"
