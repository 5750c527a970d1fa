// SPDX-License-Identifier: MIT
/*
 * x86_insn.c - decoding with Zydis, relocation of displaced instructions
 * and the trampoline encodings of dynamic probes (see x86_insn.h).
 *
 * Relocation rules: an instruction runs the same from the trampoline when
 * nothing in it depends on where it sits. Two things do: RIP-relative
 * memory operands (their disp32 is re-aimed at the same absolute address),
 * and relative branches and calls (re-emitted as rel32 forms to the same
 * target). loop/jrcxz/xbegin have no rel32 form and are refused; so is
 * anything Zydis cannot decode. The targets are module offsets turned into
 * REL32 descriptors; the agent resolves them (probe_abi.h), and refuses a
 * trampoline page that is farther than +-2 GB from its module.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "x86_insn.h"

static ZydisDecoder x86_decoder;
static ZydisFormatter x86_formatter;
static int x86_ready;

static void x86_init(void)
{
	if (x86_ready)
		return;
	ZydisDecoderInit(&x86_decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&x86_formatter, ZYDIS_FORMATTER_STYLE_INTEL);
	x86_ready = 1;
}

int x86_decode(const uint8_t *p, size_t avail, uint64_t addr, struct x86_insn *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZyanU64 abs;

	x86_init();
	memset(out, 0, sizeof(*out));
	out->addr = addr;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&x86_decoder, p, avail, &in, ops)))
		return -EINVAL;
	out->len = in.length;
	memcpy(out->bytes, p, in.length <= sizeof(out->bytes) ? in.length : sizeof(out->bytes));

	switch (in.meta.category) {
	case ZYDIS_CATEGORY_RET:
		out->flags |= X86_F_RET;
		break;
	case ZYDIS_CATEGORY_COND_BR:
		out->flags |= X86_F_BRANCH | X86_F_COND;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		out->flags |= X86_F_BRANCH;
		break;
	case ZYDIS_CATEGORY_CALL:
		out->flags |= X86_F_CALL;
		break;
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
		out->flags |= X86_F_NOP;
		break;
	default:
		break;
	}
	if (in.mnemonic == ZYDIS_MNEMONIC_INT3)
		out->flags |= X86_F_TRAP | X86_F_NOP;
	else if (in.mnemonic == ZYDIS_MNEMONIC_UD2 || in.mnemonic == ZYDIS_MNEMONIC_HLT ||
		 in.mnemonic == ZYDIS_MNEMONIC_INT || in.mnemonic == ZYDIS_MNEMONIC_INTO ||
		 in.mnemonic == ZYDIS_MNEMONIC_IRETQ || in.mnemonic == ZYDIS_MNEMONIC_SYSRET)
		out->flags |= X86_F_TRAP;

	for (unsigned i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *o = &ops[i];

		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_RIP) {
			out->flags |= X86_F_RIPREL;
			if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, o, addr, &abs)))
				out->target = abs;
			if (in.raw.disp.size != 32)
				out->unreloc = "RIP-relative operand without a 32-bit displacement";
		}
		if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && o->imm.is_relative) {
			out->flags |= X86_F_RELATIVE;
			if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, o, addr, &abs)))
				out->target = abs;
		}
	}
	if ((out->flags & (X86_F_BRANCH | X86_F_CALL)) && !(out->flags & X86_F_RELATIVE))
		out->flags |= X86_F_INDIRECT;

	if (out->flags & X86_F_RELATIVE) {
		int ok = 0;

		if (in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT)
			ok = in.opcode == 0xeb || in.opcode == 0xe9 || in.opcode == 0xe8 ||
			     (in.opcode >= 0x70 && in.opcode <= 0x7f);
		else if (in.opcode_map == ZYDIS_OPCODE_MAP_0F)
			ok = in.opcode >= 0x80 && in.opcode <= 0x8f;
		if (!ok)
			out->unreloc = "relative branch with no 32-bit form (loop, jrcxz, xbegin)";
	}
	if ((out->flags & X86_F_RIPREL) && (out->flags & X86_F_RELATIVE))
		out->unreloc = "RIP-relative operand in a relative branch";
	return 0;
}

const char *x86_insn_text(const struct x86_insn *insn)
{
	static __thread char buf[8][64];
	static __thread unsigned next;
	char *t = buf[next++ % 8];
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	x86_init();
	if (insn->flags & X86_F_DATA)
		return "(data)";
	if (!insn->len || insn->len > sizeof(insn->bytes) ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&x86_decoder, insn->bytes, insn->len, &in, ops)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&x86_formatter, &in, ops,
							  in.operand_count_visible, t, 64,
							  insn->addr, NULL)))
		snprintf(t, 64, "(%u bytes)", insn->len);
	return t;
}

static int x86_put(struct x86_code *c, const void *p, size_t n)
{
	if (!c->len)
		c->nmark = 0; /* rebuilt from the start: old marks are stale */
	if (c->len + n > X86_CODE_MAX)
		return -ENOSPC;
	memcpy(c->buf + c->len, p, n);
	c->len += (uint32_t)n;
	return 0;
}

static int x86_reloc(struct x86_code *c, uint32_t at, uint32_t next, uint32_t type,
		     uint64_t target)
{
	struct probe_area_reloc *r;

	if (c->nrel >= X86_RELOC_MAX)
		return -ENOSPC;
	r = &c->rel[c->nrel++];
	memset(r, 0, sizeof(*r));
	r->at = at;
	r->next = next;
	r->type = type;
	r->target = target;
	return 0;
}

/* opcode bytes then a rel32 to target */
static int x86_rel32(struct x86_code *c, const uint8_t *op, size_t oplen, uint64_t target)
{
	static const uint8_t zero[4];
	uint32_t at;
	int rc;

	rc = x86_put(c, op, oplen);
	if (rc)
		return rc;
	at = c->len;
	rc = x86_put(c, zero, 4);
	if (rc)
		return rc;
	return x86_reloc(c, at, c->len, PROBE_R_REL32, target);
}

int x86_code_jmp(struct x86_code *c, uint64_t target)
{
	static const uint8_t op[] = {0xe9};

	return x86_rel32(c, op, 1, target);
}

/* Record that insn starts at offset start of c (x86_code.mark). Called
 * once its bytes are in: the first x86_put of a code rebuilt from len 0
 * drops the old marks, and would drop one recorded before it (an int3's
 * slot starts with the displaced instruction itself). */
static void x86_mark(struct x86_code *c, const struct x86_insn *insn, uint32_t start)
{
	if (c->nmark < X86_MARK_MAX) {
		c->mark[c->nmark].addr = insn->addr;
		c->mark[c->nmark++].off = start;
	}
}

static int x86_relocate_bytes(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p);

int x86_code_relocate(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p)
{
	uint32_t start = c->len;
	int rc;

	if (insn->unreloc)
		return -ENOTSUP;
	rc = x86_relocate_bytes(c, insn, p);
	if (!rc)
		x86_mark(c, insn, start);
	return rc;
}

/* x86_code_relocate without the mark. */
static int x86_relocate_bytes(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint32_t start = c->len;
	int rc;

	if (!(insn->flags & (X86_F_RIPREL | X86_F_RELATIVE)))
		return x86_put(c, p, insn->len);
	x86_init();
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&x86_decoder, p, insn->len, &in, ops)))
		return -ENOTSUP;
	if (insn->flags & X86_F_RELATIVE) {
		uint8_t op[2];

		if (in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && (in.opcode == 0xeb || in.opcode == 0xe9)) {
			op[0] = 0xe9;
			return x86_rel32(c, op, 1, insn->target);
		}
		if (in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && in.opcode == 0xe8) {
			op[0] = 0xe8;
			return x86_rel32(c, op, 1, insn->target);
		}
		op[0] = 0x0f;
		op[1] = (uint8_t)(0x80 | (in.opcode & 0x0f)); /* jcc rel8 0x7X and rel32 0F 8X */
		return x86_rel32(c, op, 2, insn->target);
	}
	/* RIP-relative: same bytes, disp32 re-aimed. */
	rc = x86_put(c, p, insn->len);
	if (rc)
		return rc;
	return x86_reloc(c, start + in.raw.disp.offset, start + insn->len, PROBE_R_REL32,
			 insn->target);
}

int x86_call_movable(const struct x86_insn *insn, const uint8_t *p)
{
	return (insn->flags & X86_F_CALL) && !insn->unreloc &&
	       ((insn->len == 5 && p[0] == 0xe8) ||
		(insn->len == 6 && p[0] == 0xff && p[1] == 0x15));
}

int x86_code_call_moved(struct x86_code *c, const struct x86_insn *insn, const uint8_t *p)
{
	/* lea rsp,[rsp-8]; push rax; lea rax,[rip+ret]; mov [rsp+8],rax; pop rax */
	static const uint8_t pre[] = {0x48, 0x8d, 0x64, 0x24, 0xf8, 0x50};
	static const uint8_t lea_rax[] = {0x48, 0x8d, 0x05};
	static const uint8_t post[] = {0x48, 0x89, 0x44, 0x24, 0x08, 0x58};
	int direct = insn->len == 5 && p[0] == 0xe8;
	uint32_t at, start = c->len;
	int rc;

	if (!x86_call_movable(insn, p))
		return -ENOTSUP;
	rc = x86_put(c, pre, sizeof(pre));
	if (!rc)
		x86_mark(c, insn, start);
	if (!rc)
		rc = x86_rel32(c, lea_rax, sizeof(lea_rax), insn->addr + insn->len);
	if (!rc)
		rc = x86_put(c, post, sizeof(post));
	if (rc)
		return rc;
	if (direct) {
		uint8_t jmp = 0xe9;

		return x86_rel32(c, &jmp, 1, insn->target);
	}
	/* jmp [rip+X]: the same slot the call read */
	at = c->len;
	rc = x86_put(c, (const uint8_t[]){0xff, 0x25, 0, 0, 0, 0}, 6);
	if (rc)
		return rc;
	return x86_reloc(c, at + 2, at + 6, PROBE_R_REL32, insn->target);
}

/*
 * Call standard handler `handler` on a 16-byte aligned stack, whatever rsp
 * was: the alignment C code (and any SSE spill in it) assumes at a call.
 * rax and r11 are free (the caller saved them) and the flags are clobbered
 * (the handler clobbers them anyway; save_flags pushed them before):
 *   movabs rax,handler; test spl,15; jnz A; call rax; jmp B
 *   A: mov r11,rsp; and rsp,-16; push r11; push r11; call rax; mov rsp,[rsp]
 *   B:
 * At a function's entry, ret or tail jump, the ABI's alignment with the
 * trampoline's pushes leaves rsp aligned already: the plain call, without
 * the realignment's stack-pointer writes (an and, a load into rsp), each of
 * which the stack engine must synchronise. Two pushes keep the alignment;
 * [rsp] after the call holds the stack pointer to go back to.
 */
static int x86_call_aligned(struct x86_code *c, uint32_t handler)
{
	static const uint8_t test[] = {0x40, 0xf6, 0xc4, 0x0f, /* test spl,15 */
				       0x75, 0x04,	     /* jnz A (over call, jmp) */
				       0xff, 0xd0,	     /* call rax */
				       0xeb, 0x11};	     /* jmp B (over A) */
	static const uint8_t align[] = {0x49, 0x89, 0xe3,	/* A: mov r11,rsp */
					0x48, 0x83, 0xe4, 0xf0, /* and rsp,-16 */
					0x41, 0x53, 0x41, 0x53, /* push r11; push r11 */
					0xff, 0xd0,		/* call rax */
					0x48, 0x8b, 0x24, 0x24}; /* mov rsp,[rsp] */
	uint8_t b[10];
	int rc = 0;

	_Static_assert(sizeof(align) == 0x11, "jmp B skips A");
	b[0] = 0x48, b[1] = 0xb8; /* movabs rax, handler */
	memset(b + 2, 0, 8);
	rc |= x86_put(c, b, 10);
	if (!rc)
		rc = x86_reloc(c, c->len - 8, c->len, PROBE_R_HANDLER64, handler);
	rc |= x86_put(c, test, sizeof(test));
	rc |= x86_put(c, align, sizeof(align));
	return rc;
}

/* The 5-byte nop that starts a handler call (x86_code.skip); returns its
 * offset. */
static uint32_t x86_skip_begin(struct x86_code *c, int *rc)
{
	static const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	uint32_t at = c->len;

	*rc |= x86_put(c, nop5, sizeof(nop5));
	return at;
}

static void x86_skip_end(struct x86_code *c, uint32_t at, uint32_t probe_id)
{
	if (c->nskip < X86_SKIP_MAX) {
		c->skip[c->nskip].at = at;
		c->skip[c->nskip].end = c->len;
		c->skip[c->nskip].id = probe_id & PROBE_ID_MASK;
		c->nskip++;
	}
}

int x86_code_call_handler(struct x86_code *c, uint32_t probe_id, uint32_t handler, int how)
{
	int save_flags = how & X86_CALL_SAVE_FLAGS, redzone = !(how & X86_CALL_NO_REDZONE);
	/* lea rsp,[rsp-128]: step over the red zone (lea keeps the flags) */
	static const uint8_t pre[] = {0x48, 0x8d, 0x64, 0x24, 0x80};
	/* push rax rcx rdx rsi rdi r8 r9 r10 r11: struct probe_regs, r11 lowest */
	static const uint8_t push[] = {0x50, 0x51, 0x52, 0x56, 0x57, 0x41, 0x50,
				       0x41, 0x51, 0x41, 0x52, 0x41, 0x53};
	static const uint8_t pop[] = {0x41, 0x5b, 0x41, 0x5a, 0x41, 0x59, 0x41, 0x58,
				      0x5f, 0x5e, 0x5a, 0x59, 0x58};
	/* lea rsp,[rsp+128] */
	static const uint8_t post[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	/* mov rsi,rsp: the pushed registers */
	static const uint8_t regs[] = {0x48, 0x89, 0xe6};
	static const uint8_t pushf = 0x9c, popf = 0x9d;
	uint8_t b[16];
	uint32_t sp_off = 72 + (redzone ? PROBE_REDZONE : 0) + (save_flags ? 8 : 0), skip_at;
	int rc = 0;

	/*
	 * The stack is realigned for the call (x86_call_aligned): a probe
	 * may run with any rsp (a caller without a frame, a block in the
	 * middle of a function), and the handler is C that may reach code
	 * compiled with SSE (the ring-full wait, libc).
	 */
	skip_at = x86_skip_begin(c, &rc);
	if (redzone)
		rc |= x86_put(c, pre, sizeof(pre));
	if (save_flags)
		rc |= x86_put(c, &pushf, 1);
	rc |= x86_put(c, push, sizeof(push));
	/* mov edi, probe_id */
	b[0] = 0xbf;
	memcpy(b + 1, &probe_id, 4);
	rc |= x86_put(c, b, 5);
	rc |= x86_put(c, regs, sizeof(regs));
	/* lea rdx,[rsp+disp32]: the stack pointer at the probe */
	b[0] = 0x48, b[1] = 0x8d, b[2] = 0x94, b[3] = 0x24;
	memcpy(b + 4, &sp_off, 4);
	rc |= x86_put(c, b, 8);
	rc |= x86_call_aligned(c, handler);
	rc |= x86_put(c, pop, sizeof(pop));
	if (save_flags)
		rc |= x86_put(c, &popf, 1);
	if (redzone)
		rc |= x86_put(c, post, sizeof(post));
	x86_skip_end(c, skip_at, probe_id);
	return rc ? -ENOSPC : 0;
}

int x86_code_call_handler_full(struct x86_code *c, uint32_t probe_id, uint32_t handler)
{
	static const uint8_t pre[] = {0x48, 0x8d, 0x64, 0x24, 0x80}; /* lea rsp,[rsp-128] */
	static const uint8_t pushf = 0x9c, popf = 0x9d;
	/* push rax rcx rdx rsi rdi r8 r9 r10 r11 (struct probe_regs) */
	static const uint8_t push[] = {0x50, 0x51, 0x52, 0x56, 0x57, 0x41, 0x50,
				       0x41, 0x51, 0x41, 0x52, 0x41, 0x53};
	/* push rbx rbp r12 r13 r14 r15 */
	static const uint8_t push_cs[] = {0x53, 0x55, 0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57};
	static const uint8_t pop[] = {0x41, 0x5b, 0x41, 0x5a, 0x41, 0x59, 0x41, 0x58,
				      0x5f, 0x5e, 0x5a, 0x59, 0x58};
	static const uint8_t post[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	static const uint8_t regs[] = {0x48, 0x89, 0xe6}; /* mov rsi,rsp */
	uint32_t xmm_bytes = 256, cs_bytes = 48;
	uint32_t sp_off = xmm_bytes + cs_bytes + 72 + 8 + PROBE_REDZONE;
	uint32_t drop = xmm_bytes + cs_bytes, skip_at;
	uint8_t b[16];
	int rc = 0;

	skip_at = x86_skip_begin(c, &rc);
	rc |= x86_put(c, pre, sizeof(pre));
	rc |= x86_put(c, &pushf, 1);
	rc |= x86_put(c, push, sizeof(push));
	rc |= x86_put(c, push_cs, sizeof(push_cs));
	/* lea rsp,[rsp-256] */
	b[0] = 0x48, b[1] = 0x8d, b[2] = 0xa4, b[3] = 0x24;
	{
		int32_t d = -(int32_t)xmm_bytes;

		memcpy(b + 4, &d, 4);
	}
	rc |= x86_put(c, b, 8);
	/* movdqu [rsp+16*i], xmm_i: F3 [REX.R] 0F 7F /r with rsp base (SIB 0x24) */
	for (unsigned i = 0; i < 16; i++) {
		size_t n = 0;

		b[n++] = 0xf3;
		if (i >= 8)
			b[n++] = 0x44;
		b[n++] = 0x0f;
		b[n++] = 0x7f;
		if (i == 0) {
			b[n++] = (uint8_t)(0x04 | ((i & 7) << 3));
			b[n++] = 0x24;
		} else {
			b[n++] = (uint8_t)(0x84 | ((i & 7) << 3)); /* disp32 */
			b[n++] = 0x24;
			{
				uint32_t d = 16 * i;

				memcpy(b + n, &d, 4);
				n += 4;
			}
		}
		rc |= x86_put(c, b, n);
	}
	b[0] = 0xbf; /* mov edi, probe_id */
	memcpy(b + 1, &probe_id, 4);
	rc |= x86_put(c, b, 5);
	rc |= x86_put(c, regs, sizeof(regs));
	b[0] = 0x48, b[1] = 0x8d, b[2] = 0x94, b[3] = 0x24; /* lea rdx,[rsp+sp_off] */
	memcpy(b + 4, &sp_off, 4);
	rc |= x86_put(c, b, 8);
	rc |= x86_call_aligned(c, handler);
	/* lea rsp,[rsp+drop]: the xmm and callee-saved copies */
	b[0] = 0x48, b[1] = 0x8d, b[2] = 0xa4, b[3] = 0x24;
	memcpy(b + 4, &drop, 4);
	rc |= x86_put(c, b, 8);
	rc |= x86_put(c, pop, sizeof(pop));
	rc |= x86_put(c, &popf, 1);
	rc |= x86_put(c, post, sizeof(post));
	x86_skip_end(c, skip_at, probe_id);
	return rc ? -ENOSPC : 0;
}

int x86_code_insert(struct x86_code *c, uint64_t addr, uint32_t probe_id, uint32_t handler,
		    int full)
{
	struct x86_code *t;
	uint32_t at = 0, k;
	int found = 0, rc;

	for (k = 0; k < c->nmark; k++)
		if (c->mark[k].addr == addr && c->mark[k].off <= c->len) {
			at = c->mark[k].off;
			found = 1;
			break;
		}
	if (!found)
		return -ENOENT;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	rc = full ? x86_code_call_handler_full(t, probe_id, handler)
		  : x86_code_call_handler(t, probe_id, handler, 1);
	if (!rc && (c->len + t->len > X86_CODE_MAX || c->nrel + t->nrel > X86_RELOC_MAX ||
		    c->nskip + t->nskip > X86_SKIP_MAX))
		rc = -ENOSPC;
	if (rc)
		goto out;
	memmove(c->buf + at + t->len, c->buf + at, c->len - at);
	memcpy(c->buf + at, t->buf, t->len);
	c->len += t->len;
	for (k = 0; k < c->nrel; k++)
		if (c->rel[k].at >= at) {
			c->rel[k].at += t->len;
			c->rel[k].next += t->len;
		}
	for (k = 0; k < c->nskip; k++)
		if (c->skip[k].at >= at) {
			c->skip[k].at += t->len;
			c->skip[k].end += t->len;
		}
	/* the instruction at the mark itself moves too: a second rider at the
	 * same address goes after this one (they run in the order added) */
	for (k = 0; k < c->nmark; k++)
		if (c->mark[k].off >= at)
			c->mark[k].off += t->len;
	for (k = 0; k < t->nrel; k++) {
		c->rel[c->nrel] = t->rel[k];
		c->rel[c->nrel].at += at;
		c->rel[c->nrel++].next += at;
	}
	for (k = 0; k < t->nskip; k++) {
		c->skip[c->nskip] = t->skip[k];
		c->skip[c->nskip].at += at;
		c->skip[c->nskip++].end += at;
	}
out:
	free(t);
	return rc;
}
