import { describe, expect, it } from "vitest";
import { splitValues, withoutPending } from "../../web/src/components/filter-values.js";

/** The filter editor's several values: what is typed and not yet a chip still counts on Apply. */
describe("a filter condition's values", () => {
  it("splits typed or pasted text on commas, semicolons, tabs and line breaks", () => {
    expect(splitValues(" paid_search, paid_social ;email\tx\r\ny,, ")).toEqual([
      "paid_search",
      "paid_social",
      "email",
      "x",
      "y",
    ]);
  });

  it("joins the text still typed to the chips, once each, and never sends it as its own field", () => {
    expect(
      withoutPending({ key: "channel", op: "is", value: "email", pending: "organic_search, email" }),
    ).toEqual({
      key: "channel",
      op: "is",
      value: ["email", "organic_search"],
    });
    expect(withoutPending({ key: "device", op: "is", value: "", pending: "mobile" })).toEqual({
      key: "device",
      op: "is",
      value: "mobile",
    });
    expect(withoutPending({ key: "channel", op: "is_not", value: ["a", "b"], pending: "" })).toEqual({
      key: "channel",
      op: "is_not",
      value: ["a", "b"],
    });
  });
});
