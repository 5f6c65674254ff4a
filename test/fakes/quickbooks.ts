import { FakePlatform, dayAgo } from "./server.js";

/** QuickBooks Online: Intuit OAuth (Basic client auth, rotating refresh tokens), companyinfo, ProfitAndLoss. */
export const QBO_REALM = "9130350000000001";
export const qboDays = () => [
  { date: dayAgo(2), income: 1500, expenses: 400.5 },
  { date: dayAgo(1), income: 0, expenses: 120 },
  { date: dayAgo(0), income: 300.25, expenses: 0 },
];

export async function startQuickbooksFake(client = { id: "qbo-client", secret: "qbo-secret" }) {
  const fake = new FakePlatform("quickbooks", {
    warnings: null,
    intuitObject: null,
    Fault: {
      Error: [
        {
          Message: "message=AuthenticationFailed; errorCode=003200; statusCode=401",
          Detail: "Token expired",
          code: "3200",
        },
      ],
      type: "AUTHENTICATION",
    },
  });
  fake.rotateRefreshTokens = true;
  const days = qboDays();
  const basicOk = (h: string | undefined) =>
    h === `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString("base64")}`;
  fake.on("POST", /^\/oauth2\/v1\/tokens\/bearer$/, (req, res) => {
    if (!basicOk(req.headers.authorization)) return res.send(401, { error: "invalid_client" });
    const out = fake.grant(req.form);
    if (out.status === 200) {
      // Intuit also states the refresh token's own lifetime.
      return res.send(200, { ...(out.body as object), x_refresh_token_expires_in: 8_726_400 });
    }
    res.send(out.status, out.body);
  });
  fake.on("POST", /^\/v2\/oauth2\/tokens\/revoke$/, (req, res) => {
    if (!basicOk(req.headers.authorization)) return res.send(401, { error: "invalid_client" });
    const t = req.json?.token ?? "";
    if (!fake.refreshTokens.delete(t) && !fake.accessTokens.delete(t))
      return res.send(400, { error: "invalid_token" });
    fake.revoked.push(t);
    res.send(200, undefined);
  });
  fake.on("GET", new RegExp(`^/v3/company/${QBO_REALM}/companyinfo/${QBO_REALM}$`), (req, res) => {
    if (!fake.authorized(req, res)) return;
    res.send(200, {
      CompanyInfo: { CompanyName: "Acme Books LLC", Id: "1", Country: "US" },
      time: new Date().toISOString(),
    });
  });
  fake.on("GET", new RegExp(`^/v3/company/${QBO_REALM}/reports/ProfitAndLoss$`), (req, res) => {
    if (!fake.authorized(req, res)) return;
    const from = req.query.get("start_date")!;
    const to = req.query.get("end_date")!;
    const inRange = days.filter((d) => d.date >= from && d.date <= to);
    const money = (v: number) => ({ value: v.toFixed(2) });
    const sum = (k: "income" | "expenses") => inRange.reduce((s, d) => s + d[k], 0);
    res.send(200, {
      Header: {
        ReportName: "ProfitAndLoss",
        StartPeriod: from,
        EndPeriod: to,
        SummarizeColumnsBy: "Days",
        Currency: "USD",
      },
      Columns: {
        Column: [
          { ColTitle: "", ColType: "Account", MetaData: [{ Name: "ColKey", Value: "account" }] },
          ...inRange.map((d) => ({
            ColTitle: d.date,
            ColType: "Money",
            MetaData: [
              { Name: "StartDate", Value: d.date },
              { Name: "EndDate", Value: d.date },
              { Name: "ColKey", Value: d.date },
            ],
          })),
          { ColTitle: "Total", ColType: "Money", MetaData: [{ Name: "ColKey", Value: "total" }] },
        ],
      },
      Rows: {
        Row: [
          {
            Header: { ColData: [{ value: "Income" }] },
            Rows: { Row: [] },
            Summary: {
              ColData: [
                { value: "Total Income" },
                ...inRange.map((d) => money(d.income)),
                money(sum("income")),
              ],
            },
            type: "Section",
            group: "Income",
          },
          {
            Header: { ColData: [{ value: "Expenses" }] },
            Rows: { Row: [] },
            Summary: {
              ColData: [
                { value: "Total Expenses" },
                ...inRange.map((d) => money(d.expenses)),
                money(sum("expenses")),
              ],
            },
            type: "Section",
            group: "Expenses",
          },
          {
            Summary: {
              ColData: [
                { value: "Net Income" },
                ...inRange.map((d) => money(d.income - d.expenses)),
                money(sum("income") - sum("expenses")),
              ],
            },
            type: "Section",
            group: "NetIncome",
          },
        ],
      },
    });
  });
  return fake.start();
}
