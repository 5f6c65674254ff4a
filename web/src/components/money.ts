/**
 * Money as the project's events name it (the summary's `revenueCurrency`): "$43,712" with a
 * currency, a plain number without one — never a symbol the data did not give.
 */
export function moneyFormat(currency: string | null | undefined, opts: { cents?: boolean } = {}) {
  const digits = opts.cents
    ? { minimumFractionDigits: 2, maximumFractionDigits: 2 }
    : { maximumFractionDigits: 0 };
  let f: Intl.NumberFormat;
  try {
    f = currency
      ? new Intl.NumberFormat(undefined, { style: "currency", currency, ...digits })
      : new Intl.NumberFormat(undefined, digits);
  } catch {
    // A code Intl does not know: the number, and the code beside it.
    const plain = new Intl.NumberFormat(undefined, digits);
    return (n: number) => `${plain.format(n)} ${currency}`;
  }
  return (n: number) => f.format(n);
}

/** What the revenue's currency is, in words, when it is not one code. */
export function currencyNote(codes: string[]): string | null {
  if (codes.length === 0) return "events name no currency";
  if (codes.length > 1) return `mixed currencies (${codes.join(", ")}): summed as sent, not converted`;
  return null;
}
