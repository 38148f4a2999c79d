/**
 * The engagement score of an event (`EventEnvelope.score`): one 0 to 100 number, comparable across
 * sources, from whatever counts the source reports.
 */

/** Counts as the source reports them; leave out what the source does not have. */
export interface EngagementSignals {
  likes?: number;
  comments?: number;
  shares?: number;
  views?: number;
  saves?: number;
  reactions?: number;
  replies?: number;
  upvotes?: number;
  /** The only signal that lowers the score. */
  downvotes?: number;
  /** Average rating, 0 to 5. */
  rating?: number;
  /** How many ratings `rating` averages; one when left out. */
  ratingCount?: number;
}

// Weights reflect effort: a view costs nothing, a like a tap, a comment or a save some intent, a share
// puts the item in front of others.
const WEIGHTS = {
  views: 0.5,
  likes: 1,
  reactions: 1,
  upvotes: 1,
  comments: 2,
  replies: 2,
  saves: 2,
  shares: 3,
} as const;
const RATING_WEIGHT = 2;
const DOWNVOTE_WEIGHT = 1;
// Sets where the curve bends: 100 likes score 21, a busy post (10k views, 500 likes, 50 comments, 20
// shares) 75, and only viral items come near 100, so ordinary items spread over the scale.
const SATURATION = 20;

// APIs hand back odd values (a missing count as NaN, -1 for "hidden"); none of them should throw or
// poison the score. +Infinity stays the largest count, so more never scores less.
const count = (value: unknown): number => {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) return 0;
  return Math.min(value, Number.MAX_VALUE);
};

/**
 * A 0 to 100 engagement score from counts such as likes, comments and views.
 *
 * Formula, with `L(x) = ln(1 + x)` so that the thousandth like adds less than the first:
 *
 * ```
 * raw   = 0.5·L(views)
 *       + 1·(L(likes) + L(reactions) + L(upvotes))
 *       + 2·(L(comments) + L(replies) + L(saves))
 *       + 3·L(shares)
 *       + 2·(rating / 5)·L(ratingCount)          (ratingCount = 1 when left out)
 *       − 1·L(downvotes)
 * score = round(100·(1 − e^(−max(0, raw) / 20)), 2 decimals)
 * ```
 *
 * Guarantees: the result is in [0, 100] with at most two decimals; no signals (or only zeros) give 0;
 * raising any signal never lowers the score, except `downvotes`, which never raises it. A missing, NaN or
 * negative count counts as 0 and +Infinity as the largest number; `rating` is clamped to 0 to 5.
 *
 * @example calculateEngagementScore({}) // 0
 * @example calculateEngagementScore({ likes: 1 }) // 3.41
 * @example calculateEngagementScore({ likes: 100 }) // 20.61
 * @example calculateEngagementScore({ views: 10_000, likes: 500, comments: 50, shares: 20 }) // 75.12
 */
export function calculateEngagementScore(signals: EngagementSignals): number {
  let raw = 0;
  for (const [signal, weight] of Object.entries(WEIGHTS)) {
    raw += weight * Math.log1p(count(signals[signal as keyof typeof WEIGHTS]));
  }
  const rating = Math.min(count(signals.rating), 5);
  const ratings = signals.ratingCount === undefined ? 1 : count(signals.ratingCount);
  raw += RATING_WEIGHT * (rating / 5) * Math.log1p(ratings);
  raw -= DOWNVOTE_WEIGHT * Math.log1p(count(signals.downvotes));

  const score = 100 * (1 - Math.exp(-Math.max(0, raw) / SATURATION));
  return Math.round(score * 100) / 100;
}
