#!/bin/bash
# SPDX-License-Identifier: MIT
# 307-clone-own-stack-tls.t - process children (no CLONE_VM) that the
# agent's wrappers could not start over before: libc's clone() with
# CLONE_SETTLS, clone and clone3 through syscall() with a stack of their
# own (the child returns into code the program put on that stack, not
# through the wrapper) or a TLS of their own, or both. Each child starts
# over as a fork child does: on its return from the wrapper, or before
# its function, or on its first event (a stack of its own). So what it
# does (3 calls of a probed function, a lock of its own) is in its own
# stream, under its own pid, and nothing is lost. Before, a child with
# its own TLS registered as a thread of its parent's process (its
# stream under the parent's pid), and a child with its own stack wrote
# into its parent's ring. A child in a pid namespace of its own
# (CLONE_NEWPID, when the kernel lets us make one) is traced too, under
# the pid spool sees (329); it was counted lost.
. "$(dirname "$0")/lib.sh"

need_cc
plan 24

{
	c_children_head
	cat <<'C'
/* what each child does: 3 calls of step, its own lock taken once */
static int child_work(void *a)
{
	static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
	int c = 0;

	(void)a;
	for (int j = 0; j < 3; j++)
		step(&c);
	pthread_mutex_lock(&cm);
	pthread_mutex_unlock(&cm);
	return c == 3 ? 0 : 1;
}

/* a child on a stack of its own returns from syscall() into this */
static void child_entry(void)
{
	_exit(child_work(NULL));
}

static char stack[1 << 16] __attribute__((aligned(16)));
static char tlsbuf[1 << 18] __attribute__((aligned(64)));

/* the top of the child's stack, with child_entry as syscall()'s return */
static void *stack_top(void)
{
	uintptr_t *top = (uintptr_t *)(stack + sizeof(stack) - 16);

	*top = (uintptr_t)child_entry;
	return top;
}

/* A TLS of the child's own: a zeroed block (the static TLS below the
 * thread pointer), a thread control block that points at itself, the
 * stack guard and pointer guard copied. */
static void *new_tls(void)
{
	char *tp = tlsbuf + sizeof(tlsbuf) / 2;
	uintptr_t guard, ptrg;

	memset(tlsbuf, 0, sizeof(tlsbuf));
	__asm__("mov %%fs:0x28, %0" : "=r"(guard));
	__asm__("mov %%fs:0x30, %0" : "=r"(ptrg));
	((void **)tp)[0] = tp; /* tcb */
	((void **)tp)[2] = tp; /* self */
	((uintptr_t *)tp)[5] = guard;
	((uintptr_t *)tp)[6] = ptrg;
	return tp;
}

static pid_t by_clone3(int tls, int own_stack, uint64_t more)
{
	struct clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.flags = more | (tls ? CLONE_SETTLS : 0);
	ca.exit_signal = SIGCHLD;
	if (tls)
		ca.tls = (uintptr_t)new_tls();
	if (own_stack) {
		ca.stack = (uintptr_t)stack;
		ca.stack_size = (uintptr_t)stack_top() - (uintptr_t)stack;
	}
	return (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
}

/* cs KIND N: N children made by KIND */
int main(int argc, char **argv)
{
	const char *k = argv[1];
	int n = atoi(argv[2]), bad = 0, st, steps = 0;

	for (int i = 0; i < n; i++) {
		pid_t p;

		if (!strcmp(k, "clone-tls")) {
			p = clone(child_work, stack + sizeof(stack), SIGCHLD | CLONE_SETTLS, NULL, NULL,
				  new_tls(), NULL);
		} else if (!strcmp(k, "sysclone-stack")) {
			p = (pid_t)syscall(SYS_clone, SIGCHLD, stack_top(), 0, 0, 0);
		} else if (!strcmp(k, "sysclone-tls")) {
			p = (pid_t)syscall(SYS_clone, SIGCHLD | CLONE_SETTLS, 0, 0, 0, new_tls());
		} else if (!strcmp(k, "sysclone-stack-tls")) {
			p = (pid_t)syscall(SYS_clone, SIGCHLD | CLONE_SETTLS, stack_top(), 0, 0,
					   new_tls());
		} else if (!strcmp(k, "clone3-stack")) {
			p = by_clone3(0, 1, 0);
		} else if (!strcmp(k, "clone3-tls")) {
			p = by_clone3(1, 0, 0);
		} else if (!strcmp(k, "clone3-stack-tls")) {
			p = by_clone3(1, 1, 0);
		} else { /* newpid */
			p = by_clone3(0, 0, CLONE_NEWPID);
		}
		if (p == 0) /* (no stack of its own: returned here) */
			_exit(child_work(NULL));
		if (p < 0) {
			perror(k);
			return 2;
		}
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		step(&steps);
	}
	printf("%s children %d bad %d parent steps %d\n", k, n, bad, steps);
	return 0;
}
C
} >cs.c
ok "the test program builds" "$CC" -O1 -pthread -o cs cs.c
N=4
step=$(fn_of step)
# own: the streams whose pid is their tid (a process of its own), counted
own() { info_streams "$1" | cut -d' ' -f1; }
for k in clone-tls sysclone-stack sysclone-tls sysclone-stack-tls clone3-stack clone3-tls clone3-stack-tls; do
	native="$(./cs $k $N)"
	for pk in 0 1; do
		SPOOL_RING_PACKETS=$pk spool_run probe -q -e 'func:step' -o p.trace -- ./cs $k $N
		"$SPOOL" report --functions --json p.trace >fn.json 2>fn.err
		check_sanitizer fn.err "spool report --functions"
		is "$RC:$OUT $(json fn.json "str($step[\"calls\"]) + ' ' + str(d[\"$J_TOTALS\"][\"lost\"])") $(own p.trace)" \
			"0:$k children $N bad 0 parent steps $N $((N + 3 * N)) 0 $((N + 1))" \
			"$k (packets $pk): the output, exit 0; every step call in the trace, none lost; $N + 1 processes"
	done
	if [ "$k" = clone-tls ] || [ "$k" = sysclone-stack ]; then
		locks_children "$native" cm "$N" ./cs $k $N
	fi
done

# CLONE_NEWPID (needs CAP_SYS_ADMIN): the child's pid, 1, is its own
# namespace's; it is traced under the pid spool sees (329), nothing lost.
if native="$(./cs newpid 2 2>/dev/null)"; then
	SPOOL_RING_PACKETS=1 spool_run probe -q -e 'func:step' -o n.trace -- ./cs newpid 2
	is "$RC:$OUT" "0:$native" "newpid: the program's output, exit 0"
	unlike "$ERR" "[1-9][0-9,]* events lost|incomplete" "  nothing lost"
	"$SPOOL" report --functions --json n.trace >fn.json 2>fn.err
	is "$(json fn.json "str($step[\"calls\"]) + ' ' + str(len($step[\"threads\"]))")" "8 3" \
		"  the parent's 2 step calls and each child's 3, each in its own thread"
else
	skip 3 "no pid namespace for this user"
fi

done_testing
