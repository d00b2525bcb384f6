export {
  activeStorefrontTokens,
  createStorefrontToken,
  LAST_USED_PRECISION_MS,
  listStorefrontTokens,
  recordStorefrontTokenUse,
  revokeStorefrontToken,
  type StorefrontToken,
  storefrontTokenHash,
} from './storefront-tokens.ts';
