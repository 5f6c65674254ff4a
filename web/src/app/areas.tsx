import { type ComponentType, type LazyExoticComponent, lazy } from "react";

export interface Area {
  /** Where the area lives; it owns every path below it (`/experiments/abc/results`). */
  path: string;
  /** Its name in the navigation. */
  label: string;
  /** Its page, loaded when first visited (one JavaScript chunk per area); none yet: "coming soon". */
  page?: LazyExoticComponent<ComponentType>;
}

/**
 * The route table and the navigation, in nav order. A page area is a folder under
 * `web/src/pages/<area>/` whose page module default-exports a component, plus one line here.
 */
export const areas: Area[] = [
  { path: "/", label: "Overview", page: lazy(() => import("../pages/overview/OverviewPage")) },
  { path: "/web", label: "Web", page: lazy(() => import("../pages/web/WebPage")) },
  {
    path: "/dashboards",
    label: "Dashboards",
    page: lazy(() => import("../pages/dashboards/DashboardsPage")),
  },
  { path: "/alerts", label: "Alerts", page: lazy(() => import("../pages/alerts/AlertsPage")) },
  {
    path: "/breakdowns",
    label: "Breakdowns",
    page: lazy(() => import("../pages/breakdowns/BreakdownsPage")),
  },
  { path: "/funnels", label: "Funnels", page: lazy(() => import("../pages/funnels/FunnelsPage")) },
  { path: "/retention", label: "Retention", page: lazy(() => import("../pages/retention/RetentionPage")) },
  { path: "/trends", label: "Trends", page: lazy(() => import("../pages/trends/TrendsPage")) },
  { path: "/paths", label: "Paths", page: lazy(() => import("../pages/paths/PathsPage")) },
  {
    path: "/attribution",
    label: "Attribution",
    page: lazy(() => import("../pages/attribution/AttributionPage")),
  },
  { path: "/cohorts", label: "Cohorts", page: lazy(() => import("../pages/cohorts/CohortsPage")) },
  {
    path: "/experiments",
    label: "Experiments",
    page: lazy(() => import("../pages/experiments/ExperimentsPage")),
  },
  { path: "/flags", label: "Flags", page: lazy(() => import("../pages/flags/FlagsPage")) },
  { path: "/goals", label: "Goals & beliefs", page: lazy(() => import("../pages/goals/GoalsPage")) },
  {
    path: "/visitors",
    label: "Visitors & leads",
    page: lazy(() => import("../pages/visitors/VisitorsPage")),
  },
  {
    path: "/integrations",
    label: "Integrations",
    page: lazy(() => import("../pages/integrations/IntegrationsPage")),
  },
  { path: "/webhooks", label: "Webhooks", page: lazy(() => import("../pages/webhooks/WebhooksPage")) },
  { path: "/email", label: "Email", page: lazy(() => import("../pages/email/EmailPage")) },
  { path: "/connect", label: "Connect", page: lazy(() => import("../pages/connect/ConnectPage")) },
  { path: "/settings", label: "Settings", page: lazy(() => import("../pages/settings/SettingsPage")) },
];
