import type { ConnectorType, PlatformAdapter } from "../types.js";
import { accounting } from "./accounting.js";
import { crm } from "./crm.js";
import { payments } from "./payments.js";
import { professionalNetworkAds } from "./professional-network-ads.js";
import { searchAds } from "./search-ads.js";
import { socialAds } from "./social-ads.js";
import { webAnalytics } from "./web-analytics.js";

/** The connector registry: one adapter per connector type. */
export const platforms: Record<ConnectorType, PlatformAdapter> = {
  search_ads: searchAds,
  web_analytics: webAnalytics,
  crm,
  payments,
  social_ads: socialAds,
  professional_network_ads: professionalNetworkAds,
  accounting,
};
