import { EVENTS } from "./model";

/** The events a subscription asks for, one checkbox each: the same when adding and editing. */
export function EventChecks({
  events,
  setEvents,
}: {
  events: string[];
  setEvents: (update: (cur: string[]) => string[]) => void;
}) {
  return (
    <fieldset className="checks">
      <legend>Events</legend>
      {EVENTS.map((ev) => (
        <label key={ev}>
          <input
            type="checkbox"
            checked={events.includes(ev)}
            onChange={(e) =>
              setEvents((cur) => (e.target.checked ? [...cur, ev] : cur.filter((x) => x !== ev)))
            }
          />{" "}
          {ev}
        </label>
      ))}
    </fieldset>
  );
}
