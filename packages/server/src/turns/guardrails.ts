import type { AgentConfig } from '@svc/core';
import type { TurnProblem } from './turn.js';

type Guardrails = NonNullable<AgentConfig['guardrails']>;

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
/** Nine or more digits, with the separators people write between them (+1 (555) 123-4567). */
const PHONE = /\+?\d[\d\s().-]{7,}\d/g;

/** E-mail addresses and phone numbers masked, as `redactPii` stores and sends them. */
export function redactPii(text: string): string {
  return text
    .replace(EMAIL, '[email]')
    .replace(PHONE, (match) => (match.replace(/\D/g, '').length >= 9 ? '[phone]' : match));
}

function blockedTerm(text: string, terms: readonly string[] | undefined): string | null {
  if (!terms?.length) return null;
  const lower = text.toLowerCase();
  return terms.find((term) => lower.includes(term.toLowerCase())) ?? null;
}

const blocked = (detail: string): TurnProblem => ({ code: 'guardrail_blocked', detail });

/**
 * The message as the agent's guardrails let it in: refused when longer than `maxInputChars` or
 * holding a blocked term; with `redactPii`, stored (and so sent to the model) masked.
 */
export function guardInput(
  content: string,
  guardrails: Guardrails | null | undefined,
): { content: string } | { refused: TurnProblem } {
  if (!guardrails) return { content };
  if (guardrails.maxInputChars !== undefined && content.length > guardrails.maxInputChars) {
    return {
      refused: blocked(
        `the message has ${content.length} characters; this agent takes at most ${guardrails.maxInputChars}`,
      ),
    };
  }
  const term = blockedTerm(content, guardrails.blockedTerms);
  if (term !== null)
    return { refused: blocked(`the message holds a term this agent does not accept ("${term}")`) };
  return { content: guardrails.redactPii ? redactPii(content) : content };
}

/**
 * The reply as the guardrails let it out, while it streams. Text is released only once it is far
 * enough from the end that no e-mail, phone number or blocked term still growing there can reach
 * back into it; `maxOutputChars` cuts the reply; a blocked term withholds it.
 */
export interface OutputGuard {
  /** Adds streamed text; answers what may be sent now ('' for nothing yet). */
  push(text: string): string;
  /** The rest to send and the reply to store, or why the reply is withheld. */
  finish(): { rest: string; reply: string } | { withheld: TurnProblem };
  /** True once `maxOutputChars` is reached: the model need not go on. */
  readonly full: boolean;
}

export function createOutputGuard(guardrails: Guardrails | null | undefined): OutputGuard {
  const redact = guardrails?.redactPii === true;
  const terms = guardrails?.blockedTerms ?? [];
  const max = guardrails?.maxOutputChars;
  // Longer than any e-mail or phone number worth masking, and than any blocked term (at most 200).
  const hold = redact || terms.length > 0 ? Math.max(64, ...terms.map((t) => t.length)) : 0;
  let raw = '';
  let sent = 0;
  const shown = () => {
    const cut = max === undefined ? raw : raw.slice(0, max);
    return redact ? redactPii(cut) : cut;
  };
  return {
    push(text) {
      raw += text;
      if (blockedTerm(raw, terms) !== null) return '';
      const visible = shown();
      const upTo = Math.max(sent, visible.length - hold);
      const out = visible.slice(sent, upTo);
      sent = upTo;
      return out;
    },
    finish() {
      const term = blockedTerm(raw, terms);
      if (term !== null)
        return { withheld: blocked('the reply held a term this agent may not say; it was withheld') };
      const reply = shown();
      return { rest: reply.slice(sent), reply };
    },
    get full() {
      return max !== undefined && raw.length >= max;
    },
  };
}
