import type SQLite from 'better-sqlite3';
import { trigramSimilarity, trigrams } from '../../domain/search/trigrams.js';

/**
 * The SQL functions the platform's queries use beyond SQLite's own, with PostgreSQL's names and
 * results: registered on every connection of a SQLite store (the main thread's reader and
 * snapshot, and the writer in its worker thread), so one query text runs on both stores.
 */
export function registerSqliteFunctions(database: SQLite.Database): void {
  database.function('similarity', { deterministic: true }, nameSimilarity());
}

interface Kept {
  text: string;
  trigrams: number[];
}

/**
 * pg_trgm's similarity(text, text): NULL for a NULL argument (it is STRICT), refused for anything
 * but text as PostgreSQL refuses it. A query compares every name with one search text: the
 * trigrams of the last text seen in each position are kept, so that text's are computed once.
 */
function nameSimilarity(): (a: unknown, b: unknown) => number | null {
  const last: [Kept, Kept] = [
    { text: '', trigrams: [] },
    { text: '', trigrams: [] },
  ];
  const trigramsAt = (position: 0 | 1, text: string) => {
    const kept = last[position];
    if (kept.text !== text) {
      kept.text = text;
      kept.trigrams = trigrams(text);
    }
    return kept.trigrams;
  };
  return (a, b) => {
    if (a === null || b === null) return null;
    if (typeof a !== 'string' || typeof b !== 'string') throw new TypeError('similarity(a, b) takes two texts');
    return trigramSimilarity(trigramsAt(0, a), trigramsAt(1, b));
  };
}
