import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, escapeHtml, render } from "./engine.js";

describe("substitution engine", () => {
  it("substitutes flat and dotted keys, escaping only in html", () => {
    const c = compile("<p>{{ name }} / {{user.firstName}} / {{n}} / {{ok}}</p>", null, "html");
    const vars = { name: "<b>", user: { firstName: "Zoë & co" }, n: 3, ok: false };
    expect(render(c, vars, true, null)).toBe("<p>&lt;b&gt; / Zoë &amp; co / 3 / false</p>");
    expect(render(c, vars, false, null)).toBe("<p><b> / Zoë & co / 3 / false</p>");
  });

  it("a flat key with a dot wins over the nested path", () => {
    const c = compile("{{user.firstName}}", null, "text");
    expect(render(c, { "user.firstName": "flat", user: { firstName: "nested" } }, false, null)).toBe("flat");
  });

  it("keeps a missing placeholder literally and reports it; objects are not values", () => {
    const c = compile("Hi {{name}}, {{user}}", null, "text");
    const missing = new Set<string>();
    expect(render(c, { user: { a: 1 } }, false, missing)).toBe("Hi {{name}}, {{user}}");
    expect([...missing].sort()).toEqual(["name", "user"]);
  });

  it("a slot's default content is used unless a variable named like the slot replaces it", () => {
    const c = compile("<h1>{{headline}}</h1>", { headline: "Hi {{name}}\nthere" }, "html");
    expect(render(c, { name: "A<" }, true, null)).toBe("<h1>Hi A&lt;<br>there</h1>");
    const missing = new Set<string>();
    expect(render(c, { headline: "Custom {{name}}" }, true, missing)).toBe("<h1>Custom {{name}}</h1>");
    expect(missing.size).toBe(0); // replaced slot content is not re-substituted (one pass)
  });

  it("sections render only when their variable is present", () => {
    const c = compile("a{{#x}}[{{x}}]{{/x}}b", null, "text");
    expect(render(c, {}, false, null)).toBe("ab");
    expect(render(c, { x: 0 }, false, null)).toBe("a[0]b");
  });

  it("rendering is stable for any values: the html never contains an unescaped value", () => {
    const c = compile("<p>{{a}}</p>", null, "html");
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = render(c, { a: s }, true, null);
        expect(out).toBe(`<p>${escapeHtml(s)}</p>`);
        expect(out.slice(3, -4)).not.toMatch(/[<>"']/);
      }),
    );
  });
});
