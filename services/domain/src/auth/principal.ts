/** Who a request acts for, as an access token proves it. */
export interface CustomerPrincipal {
  readonly kind: 'customer';
  readonly customerId: bigint;
  readonly channelId: bigint;
  readonly customerGroupId: bigint | null;
}

export interface StaffPrincipal {
  readonly kind: 'staff';
  readonly staffUserId: bigint;
}

export type Principal = CustomerPrincipal | StaffPrincipal;

export function customerPrincipal(customer: {
  readonly id: bigint;
  readonly channelId: bigint;
  readonly customerGroupId: bigint | null;
}): CustomerPrincipal {
  return { kind: 'customer', customerId: customer.id, channelId: customer.channelId, customerGroupId: customer.customerGroupId };
}

export function staffPrincipal(staffUser: { readonly id: bigint }): StaffPrincipal {
  return { kind: 'staff', staffUserId: staffUser.id };
}

/** The JWT `sub`: `customer:<id>` or `staff:<id>`. */
export function subjectOf(principal: Principal): string {
  return principal.kind === 'customer' ? `customer:${principal.customerId}` : `staff:${principal.staffUserId}`;
}
