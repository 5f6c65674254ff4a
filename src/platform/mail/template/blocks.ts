import { type Static, Type } from "@sinclair/typebox";

/**
 * Template blocks. Text fields hold plain text with `{{variable}}` / `{{slotId}}` placeholders;
 * `showIf` keeps a block only when that (optional) variable is given.
 */
const common = { showIf: Type.Optional(Type.String({ pattern: "^[A-Za-z_][\\w.-]*$", maxLength: 100 })) };
const text = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const Block = Type.Union([
  Type.Object({ type: Type.Literal("heading"), text: text(500), ...common }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal("text"), text: text(10_000), ...common }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal("button"), label: text(200), url: text(2000), ...common },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal("code"),
      /** The code's placeholder; defaults to {{code}} and may be renamed. */
      value: Type.Optional(text(200)),
      caption: Type.Optional(Type.String({ maxLength: 500 })),
      ...common,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      type: Type.Literal("image"),
      src: text(2000),
      alt: Type.Optional(Type.String({ maxLength: 300 })),
      ...common,
    },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal("divider"), ...common }, { additionalProperties: false }),
]);
export type BlockT = Static<typeof Block>;

export const SLOT_ID = "^[A-Za-z_][A-Za-z0-9_]*$";
export const Slots = Type.Record(Type.String({ pattern: SLOT_ID }), Type.String({ maxLength: 10_000 }), {
  additionalProperties: false,
  maxProperties: 50,
});
export const CommType = Type.Union([Type.Literal("transactional"), Type.Literal("marketing")]);
export type CommTypeT = Static<typeof CommType>;

export interface TemplateSource {
  name: string;
  commType: CommTypeT;
  slots: Record<string, string>;
  blocks: BlockT[];
}
