import { describe, expect, it } from 'vitest';
import { calculateEngagementScore, type EngagementSignals } from './engagement.js';

type Signal = keyof EngagementSignals;

const POSITIVE: Signal[] = [
  'likes',
  'comments',
  'shares',
  'views',
  'saves',
  'reactions',
  'replies',
  'upvotes',
  'rating',
  'ratingCount',
];

// Counts from nothing to absurd, in increasing order, including fractions and +Infinity at the top.
const SWEEP = [
  0,
  0.5,
  1,
  2,
  3,
  5,
  10,
  42,
  100,
  999,
  1e3,
  1e4,
  1e6,
  1e9,
  1e15,
  1e300,
  Number.MAX_VALUE,
  Infinity,
];
const RATINGS = [0, 0.5, 1, 2.5, 3, 4.2, 5, 6, Infinity];

// Backgrounds the swept signal is added to: empty, a quiet item, a busy one with some downvotes.
const BACKGROUNDS: EngagementSignals[] = [
  {},
  { likes: 3, views: 40 },
  { views: 1e5, likes: 2000, comments: 300, shares: 90, downvotes: 50, rating: 3, ratingCount: 20 },
];

const score = calculateEngagementScore;

describe('calculateEngagementScore', () => {
  it('gives 0 for no signals or only zeros', () => {
    expect(score({})).toBe(0);
    expect(score({ likes: 0, views: 0, shares: 0, rating: 0, ratingCount: 0 })).toBe(0);
  });

  it('matches the documented formula', () => {
    // 100·(1 − e^(−ln(2)/20)) = 3.4064…
    expect(score({ likes: 1 })).toBe(3.41);
    // 100·(1 − e^(−ln(101)/20)) = 20.6091…
    expect(score({ likes: 100 })).toBe(20.61);
    // raw = 0.5·ln(10001) + ln(501) + 2·ln(51) + 3·ln(21) = 27.819…
    expect(score({ views: 10_000, likes: 500, comments: 50, shares: 20 })).toBe(75.12);
    // raw = 2·(4/5)·ln(11) = 3.8367…
    expect(score({ rating: 4, ratingCount: 10 })).toBe(17.46);
    // a rating without a count is one rating: 2·(4/5)·ln(2)
    expect(score({ rating: 4 })).toBe(5.39);
    // raw = ln(101) − ln(11)
    expect(score({ upvotes: 100, downvotes: 10 })).toBe(10.49);
  });

  it('weighs a share above a comment above a like above a view', () => {
    expect(score({ shares: 10 })).toBeGreaterThan(score({ comments: 10 }));
    expect(score({ comments: 10 })).toBeGreaterThan(score({ likes: 10 }));
    expect(score({ likes: 10 })).toBeGreaterThan(score({ views: 10 }));
  });

  it('stays within 0 to 100 with at most two decimals, even for extreme input', () => {
    const extremes: EngagementSignals[] = [
      Object.fromEntries(POSITIVE.map((s) => [s, Infinity])),
      Object.fromEntries(POSITIVE.map((s) => [s, Number.MAX_VALUE])),
      { downvotes: Infinity },
      { likes: 1, downvotes: 1e12 },
      ...BACKGROUNDS,
    ];
    for (const signals of extremes) {
      const result = score(signals);
      expect(result).toBeGreaterThanOrEqual(0);
      expect(result).toBeLessThanOrEqual(100);
      expect(Math.round(result * 100) / 100).toBe(result);
    }
    expect(score(extremes[0]!)).toBe(100);
    expect(score({ downvotes: Infinity, likes: 1e6 })).toBe(0);
  });

  it('treats NaN, negative and non-number counts as 0', () => {
    for (const bad of [Number.NaN, -1, -Infinity, '12', null]) {
      for (const signal of [...POSITIVE, 'downvotes'] as Signal[]) {
        const base = { likes: 7, views: 300, rating: 4 };
        expect(score({ ...base, [signal]: bad as number })).toBe(score({ ...base, [signal]: 0 }));
      }
    }
  });

  it('clamps a rating above 5 to 5', () => {
    expect(score({ rating: 9, ratingCount: 3 })).toBe(score({ rating: 5, ratingCount: 3 }));
  });

  it.each(POSITIVE)('never goes down as %s goes up', (signal) => {
    const values = signal === 'rating' ? RATINGS : SWEEP;
    for (const background of BACKGROUNDS) {
      // a count of ratings only matters once there is a rating
      const base = signal === 'ratingCount' ? { rating: 4, ...background } : background;
      const scores = values.map((v) => score({ ...base, [signal]: v }));
      for (let i = 1; i < scores.length; i++) {
        expect(scores[i], `${signal} ${values[i - 1]} → ${values[i]}`).toBeGreaterThanOrEqual(scores[i - 1]!);
      }
      // …and it does go up somewhere, or the signal would be ignored.
      expect(scores.at(-1)!).toBeGreaterThan(scores[0]!);
    }
  });

  it('never goes up as downvotes go up, and they do bring the score down', () => {
    for (const background of BACKGROUNDS.slice(1)) {
      const scores = SWEEP.map((v) => score({ ...background, downvotes: v }));
      for (let i = 1; i < scores.length; i++) {
        expect(scores[i]).toBeLessThanOrEqual(scores[i - 1]!);
      }
      expect(scores.at(-1)!).toBeLessThan(scores[0]!);
    }
  });
});
