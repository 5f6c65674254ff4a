/**
 * Stripe amounts: every Stripe API amount is an integer in the currency's minor unit, and Stripe
 * decides how many minor units a major unit has (https://docs.stripe.com/currencies). This is the
 * one conversion; the connector sync and the incoming webhook both use it, so the same charge
 * is the same amount on either path.
 */

// Stripe's zero-decimal list: the amount is already in major units.
const ZERO_DECIMAL = new Set("bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split(" "));
// Stripe's three-decimal list: thousandths.
const THREE_DECIMAL = new Set("bhd jod kwd omr tnd".split(" "));
// Every other currency is two-decimal in Stripe's API — also ISK, HUF and TWD, which ISO 4217 or
// card networks treat as whole units: Stripe keeps them two-decimal (amounts divisible by 100)
// for backwards compatibility, so `100` ISK is 1 króna.

/** Decimal places of a currency in Stripe amounts (0, 2 or 3). Case-insensitive ISO code. */
export function stripeCurrencyExponent(currency: string): 0 | 2 | 3 {
  const c = currency.toLowerCase();
  if (ZERO_DECIMAL.has(c)) return 0;
  if (THREE_DECIMAL.has(c)) return 3;
  return 2;
}

/** A Stripe minor-unit amount in major units: 4999 USD → 49.99, 5000 JPY → 5000, 12345 KWD → 12.345. */
export function fromStripeAmount(amount: number, currency: string): number {
  const exponent = stripeCurrencyExponent(currency);
  // Division by an exact power of ten rounds once, to the double nearest the decimal value.
  return exponent === 0 ? amount : amount / 10 ** exponent;
}
