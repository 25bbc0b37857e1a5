// The Context tab's "as of" instant (C9), typed as a local date and time in the browser's zone and
// read across daylight-saving changes by local-time.ts: a time that occurs twice asks which one, a
// time that does not occur says which instant is used instead. "Now" returns to the present.
import { useEffect, useState } from 'preact/hooks';
import { formatInstant } from '../format.js';
import { localInputValue, readLocalTime, type LocalTimeReading } from '../local-time.js';

interface AsOfFormProps {
  /** The instant shown (ISO), or null for now. */
  at: string | null;
  timeZone: string;
  onApply: (at: string | null) => void;
}

/** The instant the form would apply, or null when the text is not a local date-time. */
function chosenInstant(reading: LocalTimeReading, occurrence: number): string | null {
  if (reading.kind === 'invalid') return null;
  if (reading.kind === 'skipped') return reading.instant;
  return reading.instants[occurrence] ?? reading.instants[0] ?? null;
}

function Occurrences({ instants, occurrence, onChoose }: OccurrencesProps) {
  return (
    <fieldset class="as-of-twice">
      <legend>This time occurs twice that day (clocks turned back). Which one?</legend>
      {instants.map((instant, index) => (
        <label key={instant}>
          <input
            type="radio"
            name="occurrence"
            value={String(index)}
            checked={occurrence === index}
            onChange={() => onChoose(index)}
          />
          {`${index === 0 ? 'First' : 'Second'}: ${formatInstant(instant)}`}
        </label>
      ))}
    </fieldset>
  );
}

interface OccurrencesProps {
  instants: string[];
  occurrence: number;
  onChoose: (index: number) => void;
}

export function AsOfForm({ at, timeZone, onApply }: AsOfFormProps) {
  const [text, setText] = useState(() => (at ? localInputValue(at, timeZone) : ''));
  const [occurrence, setOccurrence] = useState(0);
  const [error, setError] = useState<string | null>(null);
  // Back, Forward and "Now" change the instant from outside: the field follows.
  useEffect(() => {
    setText(at ? localInputValue(at, timeZone) : '');
    const reading = at ? readLocalTime(localInputValue(at, timeZone), timeZone) : null;
    setOccurrence(reading?.kind === 'ok' ? Math.max(0, reading.instants.indexOf(at!)) : 0);
    setError(null);
  }, [at, timeZone]);
  const reading = readLocalTime(text, timeZone);
  const apply = (event: Event) => {
    event.preventDefault();
    const instant = chosenInstant(reading, occurrence);
    if (instant) onApply(instant);
    else setError('Enter a date and a time, or choose Now.');
  };
  return (
    <form class="as-of" onSubmit={apply} aria-label="As of">
      <label class="as-of-field">
        <span>{`As of (${timeZone})`}</span>
        <input
          type="datetime-local"
          name="at"
          step="1"
          value={text}
          onInput={(event) => {
            setText(event.currentTarget.value);
            setOccurrence(0);
            setError(null);
          }}
        />
      </label>
      {reading.kind === 'ok' && reading.instants.length > 1 ? (
        <Occurrences instants={reading.instants} occurrence={occurrence} onChoose={setOccurrence} />
      ) : null}
      {reading.kind === 'skipped' ? (
        <p class="hint" role="status" data-skipped-time="">
          {`This time does not occur that day in ${timeZone} (clocks moved forward): ${formatInstant(
            reading.instant,
          )} is used.`}
        </p>
      ) : null}
      <div class="as-of-actions">
        <button type="submit" class="btn btn-primary">
          Show
        </button>
        <button type="button" class="btn btn-secondary" disabled={at === null} onClick={() => onApply(null)}>
          Now
        </button>
      </div>
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
