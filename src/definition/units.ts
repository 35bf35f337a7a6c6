/**
 * Sizes (`512kb`, `1mb`) and durations (`30s`, `1m`) as written in `limits`. Units are binary for sizes.
 * The patterns carry no flags, so that they mean the same in the JSON Schema.
 */

export const SIZE_PATTERN = /^(\d+(?:\.\d+)?) ?([kKmMgG]?[bB])$/;
export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function scaled(text: string, pattern: RegExp, units: Record<string, number>): number | undefined {
  const match = pattern.exec(text);
  const amount = match?.[1];
  const unit = units[(match?.[2] ?? '').toLowerCase()];
  if (amount === undefined || unit === undefined) return undefined;
  return Math.floor(Number(amount) * unit);
}

/** Bytes of a size: a number of bytes, or a string like `1mb` (1048576). Undefined when malformed. */
export function parseSize(size: number | string): number | undefined {
  return typeof size === 'number' ? size : scaled(size, SIZE_PATTERN, SIZE_UNITS);
}

/** Milliseconds of a duration like `1m` (60000). Undefined when malformed. */
export function parseDuration(duration: string): number | undefined {
  return scaled(duration, DURATION_PATTERN, DURATION_UNITS);
}
