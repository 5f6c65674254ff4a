/**
 * Template substitution renders/s: Lift's precompiled template (parsed once at save time) vs
 * Handlebars precompiled (`Handlebars.compile` once) on the same email HTML with the same
 * variables, same run. Both HTML-escape substituted values.
 * Run: npx tsx bench/email/render.bench.ts   (BENCH_MS=3000 per measurement by default)
 */
import Handlebars from "handlebars";
import { builtinCompiled } from "../../src/modules/email/catalog.js";
import { renderTemplate } from "../../src/platform/mail/template/compile.js";
import { type Compiled, compile, render } from "../../src/platform/mail/template/engine.js";

const MS = Number(process.env.BENCH_MS ?? 3000);

// The same template for both: the compiled "invite" email html with its slot defaults inlined,
// i.e. a full MJML-generated email with {{variable}} placeholders only.
const invite = await builtinCompiled("invite")!;
function inline(c: Compiled): string {
  let s = c.parts[0]!;
  c.refs.forEach((r, i) => {
    s += r.t === 0 ? r.raw : r.t === 1 ? inline(r.def) : "";
    s += c.parts[i + 1]!;
  });
  return s;
}
const source = inline(invite.html);
const ours = compile(source, null, "html");
const hbs = Handlebars.compile(source);
const vars = {
  acceptUrl: "https://app.example.com/invite/accept?token=0123456789abcdef&org=acme",
  inviterName: "Grace <Hopper> & co",
  orgName: 'Acme "Labs"',
  role: "admin",
};
if (
  render(ours, vars, true, null) !==
  hbs(vars)
    .replace(/&#x27;/g, "&#39;")
    .replace(/&#x3D;/g, "=")
    .replace(/&#x60;/g, "`")
) {
  throw new Error("the two renderers disagree on the output");
}

function measure(name: string, fn: () => unknown): number {
  let n = 0;
  let sink = 0;
  const end = performance.now() + MS;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) sink += (fn() as string).length;
    n += 200;
  }
  const rate = n / (MS / 1000);
  console.log(`${name.padEnd(44)}: ${Math.round(rate).toLocaleString("en")} renders/s${sink < 0 ? "" : ""}`);
  return rate;
}

console.log(`template: ${source.length} chars html, ${ours.refs.length} placeholders`);
for (let warm = 0; warm < 2; warm++) {
  measure("warm-up Lift", () => render(ours, vars, true, null));
  measure("warm-up Handlebars", () => hbs(vars));
}
const h1 = measure("Handlebars precompiled (html)", () => hbs(vars));
const l = measure("Lift precompiled (html)", () => render(ours, vars, true, null));
const h2 = measure("Handlebars precompiled (html, again)", () => hbs(vars));
const full = measure("Lift full send render (subject+html+text)", () =>
  renderTemplate(invite, vars, new Set()),
);
const baseline = (h1 + h2) / 2;
console.log(`ratio Lift/Handlebars (html): ${(l / baseline).toFixed(2)} (target >= 1)`);
console.log(`ratio Lift full render/Handlebars html only: ${(full / baseline).toFixed(2)}`);
