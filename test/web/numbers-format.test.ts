import { describe, expect, it } from "vitest";
import { changeOf } from "../../web/src/components/change.js";
import { currencyNote, moneyFormat } from "../../web/src/components/money.js";

/** The overview's change line and money (issue 34: "+16492% vs previous", money without currency). */
const plain = (n: number) => n.toLocaleString("en-US");

describe("a headline number's change", () => {
  it("is a percentage against a big enough previous period", () => {
    expect(changeOf(1_100, 1_000, "count", plain)).toMatchObject({ text: "+10%", tone: "up" });
    expect(changeOf(950, 1_000, "count", plain)).toMatchObject({ text: "−5.0%", tone: "down" });
    expect(changeOf(40, 40, "count", plain)).toMatchObject({ text: "±0.0%", tone: "flat" });
  });

  it("is the absolute change from a small base or past ×10, and 'new' from nothing", () => {
    // issue 34's case: 1,991 visitors after 12 — +16492% before
    expect(changeOf(1_991, 12, "count", plain)?.text).toBe("+1,979 from 12");
    // a base of 20 is big enough, but ×10 is not a percentage a reader can use
    expect(changeOf(200, 20, "count", plain)?.text).toBe("+180 from 20");
    expect(changeOf(190, 20, "count", plain)?.text).toBe("+850%");
    expect(changeOf(5, 0, "count", plain)).toMatchObject({ text: "new", tone: "up" });
    expect(changeOf(0, 0, "count", plain)).toMatchObject({ text: "no change", tone: "flat" });
    // money has no count threshold: €10 → €15 is +50%
    expect(changeOf(15, 10, "money", plain)?.text).toBe("+50%");
  });

  it("is in percentage points for a rate", () => {
    expect(changeOf(0.231, 0.2, "rate", plain)).toMatchObject({ text: "+3.1 pts", tone: "up" });
    expect(changeOf(0.5, 1, "rate", plain)?.text).toBe("−50.0 pts");
    expect(changeOf(0.5, undefined, "rate", plain)).toBeNull();
  });
});

describe("money", () => {
  it("with the currency the events named, or a plain number without one", () => {
    expect(moneyFormat("EUR")(43_712.4)).toBe(
      new Intl.NumberFormat(undefined, {
        style: "currency",
        currency: "EUR",
        maximumFractionDigits: 0,
      }).format(43_712.4),
    );
    expect(moneyFormat(null)(43_712.4)).toBe(new Intl.NumberFormat().format(43_712));
    expect(moneyFormat("XYZ1")(10)).toBe(`${new Intl.NumberFormat().format(10)} XYZ1`);
    expect(currencyNote(["EUR"])).toBeNull();
    expect(currencyNote([])).toBe("events name no currency");
    expect(currencyNote(["EUR", "USD"])).toMatch(/^mixed currencies \(EUR, USD\)/);
  });
});
