import type { Prisma } from '@shop/platform';
import type { CustomerAccount } from '@shop/domain/accounts';

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

export const leadView = (lead: Prisma.LeadModel) => ({
  id: lead.id.toString(),
  email: lead.email,
  name: lead.name,
  source: lead.source,
  createdAt: lead.createdAt.toISOString(),
});
