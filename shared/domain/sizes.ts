/**
 * Sizes in bytes as people type and read them, one syntax for the CLI, the extension and the
 * jobs file: a number with a unit, binary (`512KiB`, `512MiB`, `2GiB`, `1TiB`) or the short
 * forms tools like `ulimit`, `docker --memory` and `java -Xmx` use, which are binary too (`512k`,
 * `512M`, `2G`, `1T`, any case); `B` for bytes; decimals (`1.5GiB`). A bare number is refused:
 * `512` meaning bytes is a limit that stops every job at once.
 */
import { parsed, refused, type Parsed } from './parsed';

const KIB = 1024;
/** Bytes per unit; the short forms (k, M, G, T) are binary, as in ulimit and docker. */
const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  k: KIB,
  kb: KIB,
  kib: KIB,
  m: KIB ** 2,
  mb: KIB ** 2,
  mib: KIB ** 2,
  g: KIB ** 3,
  gb: KIB ** 3,
  gib: KIB ** 3,
  t: KIB ** 4,
  tb: KIB ** 4,
  tib: KIB ** 4,
};

const EXAMPLES = 'like 512MiB, 2GiB, 512M or 64k';
const SIZE = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i;

/** `text` as whole bytes, or what is wrong with it. */
export function parseSize(text: string): Parsed<number> {
  const s = text.trim();
  if (/^-\d/.test(s)) return refused('it cannot be negative');
  if (/^\d+(?:\.\d+)?$/.test(s)) return refused(`a number needs a unit (B, KiB, MiB, GiB or TiB; k, M, G or T), e.g. ${s}MiB`);
  const m = SIZE.exec(s);
  const unit = m === null ? undefined : SIZE_UNITS[(m[2] ?? '').toLowerCase()];
  if (m === null || unit === undefined) return refused(`use a number with a unit, ${EXAMPLES}`);
  const bytes = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes)) return refused('it is too large to count in bytes');
  return parsed(bytes);
}

/**
 * A size for people, in the syntax `parseSize` reads: in the largest binary unit it reaches,
 * with one decimal at most (`512 MiB`, `1.5 GiB`, `1 KiB` for 1025 bytes), else bytes (`100 B`).
 */
export function formatSize(bytes: number): string {
  const units = ['TiB', 'GiB', 'MiB', 'KiB'] as const;
  for (const [i, unit] of units.entries()) {
    const size = KIB ** (units.length - i);
    if (bytes >= size) return `${(bytes / size).toFixed(1).replace(/\.0$/, '')} ${unit}`;
  }
  return `${bytes} B`;
}
