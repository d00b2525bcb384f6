import { accountsArea } from './accounts/area.ts';
import { authArea } from './auth/area.ts';
import { cartsArea } from './carts/area.ts';
import { catalogArea } from './catalog/area.ts';
import { healthArea } from './health/area.ts';
import { inventoryArea } from './inventory/area.ts';
import { ordersArea } from './orders/area.ts';
import { refundsArea } from './refunds/area.ts';
import { reportsArea } from './reports/area.ts';
import { returnsArea } from './returns/area.ts';
import { searchArea } from './search/area.ts';
import { settingsArea } from './settings/area.ts';
import { storeCreditArea } from './store-credit/area.ts';
import { storefrontTokensArea } from './storefront-tokens/area.ts';
import { trackingArea } from './tracking/area.ts';
import { workflowsArea } from './workflows/area.ts';

/** The api's areas, each after the ones it depends on (an area plugin names them). */
export const CORE_AREAS = [
  healthArea,
  authArea,
  accountsArea,
  catalogArea,
  cartsArea,
  ordersArea,
  returnsArea,
  storeCreditArea,
  refundsArea,
  searchArea,
  inventoryArea,
  settingsArea,
  storefrontTokensArea,
  trackingArea,
  reportsArea,
  workflowsArea,
] as const;
