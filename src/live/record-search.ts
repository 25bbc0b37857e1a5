// L1 with `text`: whether a live record matches a search is the database's answer (full-text search
// is not evaluated in Node). A record's feed gives it one RecordSearch when any of its members
// searches; the texts its subscribers ask about in one event-loop turn are answered by ONE statement,
// and each answer is kept with the record, so no text is asked twice about one record.
import type { Database } from '../store/db.js';
import { searchTextsMatching } from '../store/filter-sql.js';

export class RecordSearch {
  private readonly answers = new Map<string, Promise<boolean>>();
  /** Texts asked in this turn, not yet sent, with how to settle their answers. */
  private asked: Map<string, Settle> | null = null;

  constructor(
    private readonly db: Database,
    private readonly agentId: string,
    private readonly memoryId: string,
  ) {}

  /** Whether the record matches `text` (a normalised search text); rejects when the read fails. */
  matches(text: string): Promise<boolean> {
    const known = this.answers.get(text);
    if (known) return known;
    const asked = this.asked ?? this.startBatch();
    let settle!: Settle;
    const answer = new Promise<boolean>((resolve, reject) => (settle = { resolve, reject }));
    asked.set(text, settle);
    this.answers.set(text, answer);
    return answer;
  }

  private startBatch(): Map<string, Settle> {
    const asked = new Map<string, Settle>();
    this.asked = asked;
    queueMicrotask(() => {
      this.asked = null;
      searchTextsMatching(this.db.sql, this.agentId, this.memoryId, [...asked.keys()]).then(
        (matched) => {
          for (const [text, settle] of asked) settle.resolve(matched.has(text));
        },
        (error: unknown) => {
          // Not kept: a later subscription (the resumed one) asks again.
          for (const [text, settle] of asked) {
            this.answers.delete(text);
            settle.reject(error);
          }
        },
      );
    });
    return asked;
  }
}

interface Settle {
  resolve(matched: boolean): void;
  reject(error: unknown): void;
}
