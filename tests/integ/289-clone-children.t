#!/bin/bash
# SPDX-License-Identifier: MIT
# 289-clone-children.t - children made as new processes without a fork
# handler: glibc's clone() with a function and a stack and only SIGCHLD
# (no CLONE_VM: how some runtimes fork), clone3 and clone through
# syscall(), and _Fork. Each is wrapped as a fork child is: it gets a
# process slot and a ring of its own, so what it does (3 calls of a
# probed function, a lock taken) is in the trace in its own thread, the
# parent's stream is not written by it, and nothing is lost. Before,
# clone() and clone3 children's events vanished without a word (0 lost),
# and _Fork and syscall(SYS_clone) children's were counted lost. Both ring
# layouts (records, and packets: SPOOL_RING_PACKETS=1, where a clone()
# child that returns from its function ends by SYS_exit, no exit handler).
. "$(dirname "$0")/lib.sh"

need_cc
plan 41

{
	c_children_head
	cat <<'C'
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static long taken;

static void *locker(void *a)
{
	(void)a;
	while (!stop) {
		pthread_mutex_lock(&m);
		++taken;
		pthread_mutex_unlock(&m);
		if (!(taken % 64))
			usleep(100);
	}
	return NULL;
}

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

extern pid_t _Fork(void);

/* cl KIND N: N children made by KIND (clone, clone3, _Fork, sysclone) */
int main(int argc, char **argv)
{
	int n = atoi(argv[2]), bad = 0, st, steps = 0;
	static char stack[1 << 16] __attribute__((aligned(16)));
	pthread_t th;

	pthread_create(&th, NULL, locker, NULL);
	/* (the locker has taken its lock once: "locks taken" whatever the load) */
	while (!__atomic_load_n(&taken, __ATOMIC_RELAXED))
		usleep(100);
	for (int i = 0; i < n; i++) {
		pid_t p;

		if (!strcmp(argv[1], "clone")) {
			p = clone(child_work, stack + sizeof(stack), SIGCHLD, NULL);
		} else {
			if (!strcmp(argv[1], "clone3")) {
				struct clone_args ca;

				memset(&ca, 0, sizeof(ca));
				ca.exit_signal = SIGCHLD;
				p = (pid_t)syscall(SYS_clone3, &ca, sizeof(ca));
			} else if (!strcmp(argv[1], "_Fork")) {
				p = _Fork();
			} else {
				p = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
			}
			if (p == 0)
				_exit(child_work(NULL));
		}
		if (p < 0) {
			perror(argv[1]);
			return 2;
		}
		waitpid(p, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
		step(&steps);
	}
	stop = 1;
	pthread_join(th, NULL);
	printf("%s children %d bad %d parent steps %d locks %s\n", argv[1], n, bad, steps,
	       taken > 0 ? "taken" : "none");
	return 0;
}
C
} >cl.c
ok "the test program builds" "$CC" -O1 -pthread -o cl cl.c
N=5
step=$(fn_of step)
for k in clone clone3 _Fork sysclone; do
	native="$(./cl $k $N)"
	is "$native" "$k children $N bad 0 parent steps $N locks taken" "$k: without spool, $N children, all fine"
	for pk in 0 1; do
		SPOOL_RING_PACKETS=$pk spool_run probe -q -e 'func:step' -o p.trace -- ./cl $k $N
		is "$RC:$OUT" "0:$native" "  spool probe (packets $pk): the program's output, exit 0"
		"$SPOOL" report --functions --json p.trace >fn.json 2>fn.err
		check_sanitizer fn.err "spool report --functions"
		is "$(json fn.json "str($step[\"calls\"]) + ' ' + str(d[\"$J_TOTALS\"][\"lost\"])")" \
			"$((N + 3 * N)) 0" "  every step call is in the trace ($N + 3 per child), none lost"
		is "$(json fn.json "sorted(t[\"calls\"] for t in $step[\"threads\"])" | tr '\n' ' ')" \
			"$(for i in $(seq $N); do printf '3 '; done)$N " \
			"  each child's 3 in a thread of its own, the parent's $N in its"
	done
	locks_children "$native" cm "$N" ./cl $k $N
done

done_testing
