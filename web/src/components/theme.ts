/**
 * A colour of the current theme (light or dark, styles.css) for what CSS cannot reach: a canvas
 * chart's axes. Read when the chart is drawn.
 */
export function themeColor(el: Element, variable: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(variable).trim() || fallback;
}
