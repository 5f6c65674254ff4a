import { describe, expect, it } from "vitest";
import { bucketLabel, formulaFormat, linesOf, seriesFormat, show } from "../../web/src/pages/trends/lines.js";
import {
  START,
  readTrend,
  readView,
  trendParamsOf,
  trendsBody,
  writeTrend,
} from "../../web/src/pages/trends/url.js";

/** The Trends page's URL state and how its lines read. */
const shown = {
  series: [
    { event: "pageview", measure: "total" as const, property: "", name: "" },
    { event: "purchase", measure: "sum" as const, property: "revenue", name: " Revenue " },
  ],
  interval: "week" as const,
  breakdown: "event.plan",
  limit: 5,
  formula: "B / A * 100",
  compare: true,
};

describe("the trend in the URL", () => {
  it("round-trips through the URL and keeps the period, filter and view beside it", () => {
    const prev = new URLSearchParams("period=7d&filter=%5B%5D&view=table");
    const out = writeTrend(prev, shown);
    expect(out.get("period")).toBe("7d");
    expect(out.get("view")).toBe("table");
    expect(readView(out)).toBe("table");
    expect(readTrend(out)).toEqual({
      ...shown,
      series: [shown.series[0], { ...shown.series[1], name: "Revenue" }],
    });
  });

  it("is null without series, and falls back on bad values", () => {
    expect(readTrend(new URLSearchParams("interval=day"))).toBeNull();
    expect(readTrend(new URLSearchParams("series=not-json"))).toBeNull();
    const t = readTrend(new URLSearchParams('series=[{"event":"x","measure":"bogus"}]&interval=year&top=99'));
    expect(t).toMatchObject({ interval: "day", limit: 10, series: [{ event: "x", measure: "total" }] });
    expect(readView(new URLSearchParams("view=pie"))).toBe("line");
    const plain = writeTrend(new URLSearchParams(), START);
    expect([...plain.keys()].sort()).toEqual(["interval", "series"]);
  });

  it("is the API's body, and a saved body opens back as the same URL parameters", () => {
    const body = trendsBody(shown, { period: "7d" }, [{ key: "device", op: "is", value: "mobile" }], "g1");
    expect(body).toEqual({
      period: "7d",
      series: [
        { event: "pageview" },
        { event: "purchase", measure: "sum", property: "revenue", name: "Revenue" },
      ],
      interval: "week",
      filter: [{ key: "device", op: "is", value: "mobile" }],
      goal: "g1",
      breakdown: { property: "event.plan", limit: 5 },
      formulas: [{ expression: "B / A * 100" }],
      compare: true,
    });
    const params = new URLSearchParams(trendParamsOf(body));
    expect(params.get("goal")).toBe("g1");
    expect(readTrend(params)).toEqual(readTrend(writeTrend(new URLSearchParams(), shown)));
  });
});

describe("how a trend's numbers read", () => {
  it("counts whole, money with cents and no invented symbol, percentage formulas with one decimal", () => {
    expect(seriesFormat({ measure: "total", property: "" })(1234)).toBe((1234).toLocaleString());
    expect(seriesFormat({ measure: "sum", property: "revenue" })(40)).toBe(
      (40).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
    );
    expect(seriesFormat({ measure: "avg", property: "seconds" })(1 / 3)).toBe((0.33).toLocaleString());
    expect(formulaFormat("B / A * 100")(100 / 3)).toBe("33.3%");
    expect(formulaFormat("100*B/A")(50)).toBe("50.0%");
    expect(formulaFormat("A / B")(0.5)).toBe((0.5).toLocaleString());
  });

  it("names buckets by interval, in UTC", () => {
    const b = "2025-03-03T05:00:00.000Z";
    expect(bucketLabel(b, "hour")).toBe("2025-03-03 05:00");
    expect(bucketLabel(b, "day")).toBe("2025-03-03");
    expect(bucketLabel(b, "week")).toBe("Week of 2025-03-03");
    expect(bucketLabel(b, "month")).toBe("2025-03");
  });

  it("lists series (per breakdown value) then formulas, labelled by letter; null reads as a dash", () => {
    const pts = (...v: (number | null)[]) => v.map((value, i) => ({ bucket: `2025-01-0${i + 1}`, value }));
    const lines = linesOf(
      {
        series: [
          { label: "pageview", letter: "A", breakdownValue: "organic_search", data: pts(2, 1), total: 3 },
          { label: "pageview", letter: "A", breakdownValue: "direct", data: pts(0, 4), total: 4 },
        ],
        formulas: [{ label: "A * 100", letter: "F1", data: pts(null, 1), total: null }],
      },
      [{ measure: "total", property: "" }],
      "",
      "channel",
    );
    expect(lines.map((l) => l.label)).toEqual([
      "A. pageview · Organic search",
      "A. pageview · Direct",
      "F1. A * 100",
    ]);
    expect(new Set(lines.map((l) => l.key)).size).toBe(3);
    expect(lines.map((l) => l.formula)).toEqual([false, false, true]);
    expect(show(lines[2]!, lines[2]!.data[0])).toBe("–");
    expect(show(lines[2]!, lines[2]!.data[1])).toBe("1.0%");
  });
});
