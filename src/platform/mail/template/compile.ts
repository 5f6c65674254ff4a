import { AppError } from "../../errors.js";
import type { TemplateSource } from "./blocks.js";
import { type Compiled, compile, render, TemplateSyntaxError, type Variables } from "./engine.js";
import { toMjml, toText } from "./layout.js";

/** A template ready to send: three parsed strings; a send only substitutes. */
export interface CompiledTemplate {
  subject: Compiled;
  html: Compiled;
  text: Compiled;
}

type Mjml = (
  src: string,
  opts: object,
) => Promise<{ html: string; errors: Array<{ formattedMessage: string }> }>;
let mjmlPromise: Promise<Mjml> | null = null;
// MJML is slow to import: loaded on the first save or first built-in use, never at startup.
function loadMjml(): Promise<Mjml> {
  mjmlPromise ??= import("mjml").then(
    (m) => (m as unknown as { default?: Mjml }).default ?? (m as unknown as Mjml),
  );
  return mjmlPromise;
}

/** Blocks → MJML → responsive HTML, then parsed; runs once when a template is saved. */
export async function compileTemplate(src: TemplateSource): Promise<CompiledTemplate> {
  if (!Object.hasOwn(src.slots, "subject"))
    throw new AppError("VALIDATION_ERROR", "slots.subject is required");
  const mjml = await loadMjml();
  const out = await mjml(toMjml(src.blocks, src.commType), { validationLevel: "soft", keepComments: false });
  if (out.errors?.length) {
    throw new AppError("VALIDATION_ERROR", `template does not compile: ${out.errors[0]!.formattedMessage}`);
  }
  try {
    return {
      subject: compile("{{subject}}", src.slots, "text"),
      html: compile(out.html, src.slots, "html"),
      text: compile(toText(src.blocks, src.commType), src.slots, "text"),
    };
  } catch (err) {
    if (err instanceof TemplateSyntaxError)
      throw new AppError("VALIDATION_ERROR", `template: ${err.message}`);
    throw err;
  }
}

export interface Rendered {
  subject: string;
  html: string;
  text: string;
}

/** Substitutes variables; `missing` collects every placeholder with no value (sorted by the caller). */
export function renderTemplate(t: CompiledTemplate, vars: Variables, missing: Set<string> | null): Rendered {
  return {
    // A value with a line break must not split the Subject header.
    subject: render(t.subject, vars, false, missing)
      .replace(/[\r\n]+/g, " ")
      .trim(),
    html: render(t.html, vars, true, missing),
    text: render(t.text, vars, false, missing),
  };
}
