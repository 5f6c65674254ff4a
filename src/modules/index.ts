import type { LiftModule } from "../platform/module.js";
import { workspaceModule } from "./workspace/module.js";
import { goalsModule } from "./goals/module.js";
import { beliefsModule } from "./beliefs/module.js";
import { eventStoreModule } from "./event-store/module.js";
import { eventsModule } from "./events/module.js";
import { identityModule } from "./identity/module.js";
import { analyticsModule } from "./analytics/module.js";
import { webhooksModule } from "./webhooks/module.js";
import { experimentsModule } from "./experiments/module.js";
import { emailModule } from "./email/module.js";
import { connectorsModule } from "./connectors/module.js";
import { dashboardModule } from "./dashboard/module.js";
import { flagsModule } from "./flags/module.js";
import { insightsModule } from "./insights/module.js";
import { erasureModule } from "./erasure/module.js";
import { mcpModule } from "./mcp/module.js";
import { alertsModule } from "./alerts/module.js";

export const modules: LiftModule[] = [
  workspaceModule,
  goalsModule,
  beliefsModule,
  eventStoreModule,
  eventsModule,
  identityModule,
  analyticsModule,
  webhooksModule,
  experimentsModule,
  emailModule,
  connectorsModule,
  flagsModule,
  insightsModule,
  alertsModule,
  mcpModule,
  erasureModule,
  dashboardModule,
];
