import type { Prisma } from '@shop/platform';
import type { CartView as DomainCartView, CustomerAccount, OrderWithLines, StaffAccount, TokenPair } from '@shop/domain';

// What resolvers hand to GraphQL: ids as strings, money as two-decimal strings, times as ISO 8601.
// `key` fields keep the bigint ids the loaders need; they are not in the schema, so never sent.

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
const amount = (value: Prisma.Decimal): string => value.toFixed(2);

export interface ProductView {
  readonly id: string;
  readonly key: bigint;
  readonly brandKey: bigint | null;
  readonly sku: string;
  readonly name: string;
  readonly slug: string;
  readonly description: string;
  readonly price: string;
  readonly currency: string;
  readonly active: boolean;
}

export function productView(product: Prisma.ProductModel): ProductView {
  return {
    id: product.id.toString(),
    key: product.id,
    brandKey: product.brandId,
    sku: product.sku,
    name: product.name,
    slug: product.slug,
    description: product.description,
    price: amount(product.price),
    currency: product.currency,
    active: product.active,
  };
}

export interface BrandView {
  readonly id: string;
  readonly key: bigint;
  readonly name: string;
  readonly slug: string;
}

export const brandView = (brand: Prisma.BrandModel): BrandView => ({ id: brand.id.toString(), key: brand.id, name: brand.name, slug: brand.slug });

export interface CategoryView {
  readonly id: string;
  readonly key: bigint;
  readonly parentKey: bigint | null;
  readonly name: string;
  readonly slug: string;
  readonly position: number;
}

export const categoryView = (category: Prisma.CategoryModel): CategoryView => ({
  id: category.id.toString(),
  key: category.id,
  parentKey: category.parentId,
  name: category.name,
  slug: category.slug,
  position: category.position,
});

export const channelView = (channel: Prisma.ChannelModel) => ({
  id: channel.id.toString(),
  code: channel.code,
  name: channel.name,
  defaultCurrency: channel.defaultCurrency,
});

export const stockLocationView = (location: Prisma.StockLocationModel) => ({ id: location.id.toString(), name: location.name });

export const stockLevelView = (level: Prisma.StockLevelModel) => ({
  productId: level.productId.toString(),
  locationId: level.locationId.toString(),
  onHand: level.onHand,
  reserved: level.reserved,
  available: level.onHand - level.reserved,
});

export const tokenPairView = (pair: TokenPair) => ({
  accessToken: pair.accessToken,
  accessTokenExpiresAt: pair.accessTokenExpiresAt.toISOString(),
  refreshToken: pair.refreshToken,
  refreshTokenExpiresAt: pair.refreshTokenExpiresAt.toISOString(),
});

export const customerView = (customer: CustomerAccount) => ({
  id: customer.id.toString(),
  channelId: customer.channelId.toString(),
  email: customer.email,
  firstName: customer.firstName,
  lastName: customer.lastName,
  isBusiness: customer.isBusiness,
  approvalStatus: customer.approvalStatus,
  createdAt: customer.createdAt.toISOString(),
});

export const staffView = (staff: StaffAccount, permissions: readonly string[]) => ({
  id: staff.id.toString(),
  email: staff.email,
  name: staff.name,
  active: staff.active,
  permissions,
});

export const leadView = (lead: Prisma.LeadModel) => ({
  id: lead.id.toString(),
  email: lead.email,
  name: lead.name,
  source: lead.source,
  createdAt: lead.createdAt.toISOString(),
});

export interface CartLineView {
  readonly productId: string;
  readonly productKey: bigint;
  readonly quantity: number;
  readonly unitPrice: string;
  readonly lineTotal: string;
}

export const cartView = (cart: DomainCartView) => ({
  id: cart.id.toString(),
  currency: cart.currency,
  lines: cart.lines.map(
    (line): CartLineView => ({
      productId: line.productId.toString(),
      productKey: line.productId,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      lineTotal: line.lineTotal,
    }),
  ),
  itemCount: cart.lines.reduce((count, line) => count + line.quantity, 0),
  subtotal: cart.subtotal,
  shipping: cart.shipping,
  tax: cart.tax,
  total: cart.total,
});

export const orderView = (order: OrderWithLines) => ({
  id: order.id.toString(),
  number: order.number,
  channelId: order.channelId.toString(),
  customerId: order.customerId?.toString() ?? null,
  status: order.status,
  email: order.email,
  currency: order.currency,
  subtotal: amount(order.subtotal),
  tax: amount(order.tax),
  shipping: amount(order.shipping),
  discount: amount(order.discount),
  total: amount(order.total),
  billingAddress: order.billingAddress,
  shippingAddress: order.shippingAddress,
  placedAt: order.placedAt.toISOString(),
  paidAt: iso(order.paidAt),
  fulfilledAt: iso(order.fulfilledAt),
  completedAt: iso(order.completedAt),
  cancelledAt: iso(order.cancelledAt),
  cancelReason: order.cancelReason,
  lines: order.lines.map((line) => ({
    id: line.id.toString(),
    productId: line.productId.toString(),
    sku: line.sku,
    productName: line.productName,
    quantity: line.quantity,
    unitPrice: amount(line.unitPrice),
    lineTotal: amount(line.lineTotal),
  })),
});

export const workflowFaultView = (fault: Prisma.WorkflowFaultModel) => ({
  id: fault.id.toString(),
  workflow: fault.workflow,
  workflowId: fault.workflowId,
  runId: fault.runId,
  entityType: fault.entityType,
  entityId: fault.entityId,
  reason: fault.reason,
  details: fault.details,
  createdAt: fault.createdAt.toISOString(),
});
