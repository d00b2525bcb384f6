/**
 * The GraphQL schema. Ids are `ID` strings holding decimal numbers; money is a String with two
 * decimals beside its ISO 4217 currency; times are ISO 8601 strings in UTC. Lists that grow are
 * cursor-paginated: `first` (1 to 100, default 20) and `after` (an opaque `endCursor`).
 */
export const typeDefs = /* GraphQL */ `
  "Any JSON value (settings)."
  scalar JSON

  type PageInfo {
    "Pass as after to get the next page; null on an empty page."
    endCursor: String
    hasNextPage: Boolean!
  }

  type TokenPair {
    "Send as Authorization: Bearer <accessToken>; valid for 15 minutes."
    accessToken: String!
    accessTokenExpiresAt: String!
    "Exchange with refreshToken for a new pair; each one works once."
    refreshToken: String!
    refreshTokenExpiresAt: String!
  }

  type Channel {
    id: ID!
    code: String!
    name: String!
    defaultCurrency: String!
  }

  enum BusinessApproval {
    PENDING
    APPROVED
    REJECTED
  }

  type Customer {
    id: ID!
    channelId: ID!
    email: String!
    firstName: String
    lastName: String
    isBusiness: Boolean!
    approvalStatus: BusinessApproval
    createdAt: String!
  }

  type StaffUser {
    id: ID!
    email: String!
    name: String!
    active: Boolean!
    "Every permission the staff user's roles grant, sorted."
    permissions: [String!]!
  }

  type Brand {
    id: ID!
    name: String!
    slug: String!
  }

  type Category {
    id: ID!
    name: String!
    slug: String!
    position: Int!
    parent: Category
    "Ordered by position."
    children: [Category!]!
  }

  type Product {
    id: ID!
    sku: String!
    name: String!
    slug: String!
    description: String!
    price: String!
    currency: String!
    active: Boolean!
    brand: Brand
    "In order: the first is the primary category."
    categories: [Category!]!
    "Units that can be sold now, over every location (on hand minus reserved)."
    available: Int!
  }

  type ProductConnection {
    nodes: [Product!]!
    pageInfo: PageInfo!
  }

  type CartLine {
    productId: ID!
    product: Product
    quantity: Int!
    "The price when the line was added; checkout charges today's price."
    unitPrice: String!
    lineTotal: String!
  }

  "A shopper's cart. Totals are what checkout would charge now with the shop's tax and shipping settings."
  type Cart {
    id: ID!
    currency: String!
    lines: [CartLine!]!
    itemCount: Int!
    subtotal: String!
    shipping: String!
    tax: String!
    total: String!
  }

  type Address {
    name: String!
    line1: String!
    line2: String
    postalCode: String!
    city: String!
    "ISO 3166-1 alpha-2, e.g. DE."
    countryCode: String!
  }

  input AddressInput {
    name: String!
    line1: String!
    line2: String
    postalCode: String!
    city: String!
    countryCode: String!
  }

  enum OrderStatus {
    AWAITING_APPROVAL
    PENDING_PAYMENT
    PLACED
    FULFILLED
    COMPLETED
    CANCELLED
  }

  type OrderLine {
    id: ID!
    productId: ID!
    sku: String!
    productName: String!
    quantity: Int!
    unitPrice: String!
    lineTotal: String!
  }

  type Order {
    id: ID!
    "Human-facing, e.g. SO-2026-000042."
    number: String!
    channelId: ID!
    customerId: ID
    status: OrderStatus!
    email: String!
    currency: String!
    subtotal: String!
    tax: String!
    shipping: String!
    discount: String!
    total: String!
    billingAddress: Address!
    shippingAddress: Address!
    placedAt: String!
    paidAt: String
    fulfilledAt: String
    completedAt: String
    cancelledAt: String
    cancelReason: String
    lines: [OrderLine!]!
  }

  type OrderConnection {
    nodes: [Order!]!
    pageInfo: PageInfo!
  }

  type Lead {
    id: ID!
    email: String!
    name: String
    source: String!
    createdAt: String!
  }

  type StockLocation {
    id: ID!
    name: String!
  }

  type StockLevel {
    productId: ID!
    locationId: ID!
    onHand: Int!
    reserved: Int!
    available: Int!
  }

  enum TrackedEntityType {
    banner
    slide
    hero
  }

  type Money {
    "Two decimals, e.g. 19.90."
    amount: String!
    "ISO 4217; XXX when the order no longer exists."
    currency: String!
  }

  "One tracked entity on one UTC day (docs/tracking.md, Reports)."
  type TrackingReportRow {
    "YYYY-MM-DD, UTC."
    day: String!
    entityType: TrackedEntityType!
    entityId: ID!
    impressions: Int!
    "Every click, repeats included."
    clicks: Int!
    repeatClicks: Int!
    "Sessions with at least one impression or click of the entity that day."
    uniqueSessions: Int!
    "clicks / impressions; null without impressions."
    ctr: Float
    "repeatClicks / clicks; null without clicks."
    repeatClickShare: Float
    "Cart adds that day crediting a click of the entity (each once)."
    attributedCartAdds: Int!
    "Orders completed that day crediting a click of the entity (each once)."
    attributedPurchases: Int!
    "Their credited order lines' totals (each line once), per currency."
    attributedRevenue: [Money!]!
  }

  type TrackingReportConnection {
    nodes: [TrackingReportRow!]!
    pageInfo: PageInfo!
  }

  "An assumption of a workflow that proved false, about one entity: an analytics signal, recorded once per run, reason and entity."
  type WorkflowFault {
    "Later faults have greater ids."
    id: ID!
    "The workflow type, e.g. OrderLifecycleWorkflow; a sweep run without a workflow engine names its pass."
    workflow: String!
    "The workflow's id, e.g. order-42."
    workflowId: String!
    "The run of the workflow that found the fault."
    runId: String!
    "The kind of entity the assumption was about, e.g. order."
    entityType: String!
    "Its id, as text."
    entityId: String!
    "A stable snake_case code, e.g. fulfilment_overdue or held_for_settled_order."
    reason: String!
    "What the workflow saw, a JSON object whose keys depend on the reason."
    details: JSON!
    "When it was recorded."
    createdAt: String!
  }

  type WorkflowFaultConnection {
    nodes: [WorkflowFault!]!
    pageInfo: PageInfo!
  }

  type Query {
    "Legacy in-graph liveness check: always the string ok."
    health: String!

    "The signed-in customer."
    me: Customer!
    "The signed-in customer's orders, newest first."
    myOrders(first: Int = 20, after: String): OrderConnection!

    "Storefront: active products sold in the channel, ordered by id. categoryId includes its subcategories; search matches name or SKU."
    products(first: Int = 20, after: String, categoryId: ID, brandId: ID, search: String): ProductConnection!
    "Storefront: one active product of the channel by id or by slug (give exactly one); null when there is none."
    product(id: ID, slug: String): Product
    "The top-level categories, ordered by position; each holds its children."
    categories: [Category!]!
    brands: [Brand!]!
    channels: [Channel!]!
    "The shopper's active cart (signed-in customer or X-Session-ID)."
    cart(id: ID!): Cart!

    "Staff: the signed-in staff user and their permissions."
    staffMe: StaffUser!
    "Staff (orders.read): orders, newest first."
    orders(first: Int = 20, after: String, status: OrderStatus): OrderConnection!
    "Staff (orders.read)."
    order(id: ID!): Order!
    "Staff (inventory.read)."
    stockLocations: [StockLocation!]!
    "Staff (settings.manage): the stored value of a setting, null when unset."
    setting(key: String!): JSON
    "Staff (reports.read): per entity and UTC day from from to to (YYYY-MM-DD, both included, at most 92 days), ordered by day, entity type and id; only entities with events or conversions that day. entityIds needs entityType. first: 1 to 1000, default 100."
    trackingReport(from: String!, to: String!, entityType: TrackedEntityType, entityIds: [ID!], first: Int = 100, after: String): TrackingReportConnection!
    "Staff (workflows.read): workflow faults, newest first; workflow keeps one workflow type. since (included) and until (excluded) are ISO 8601 times such as 2026-03-01T12:00:00Z, to the millisecond, or days such as 2026-03-01 (their start in UTC)."
    workflowFaults(workflow: String, since: String, until: String, first: Int = 20, after: String): WorkflowFaultConnection!
  }

  input RegisterCustomerInput {
    email: String!
    password: String!
    firstName: String
    lastName: String
    "Business accounts start PENDING; their orders wait for approval."
    isBusiness: Boolean = false
  }

  input PlaceOrderInput {
    cartId: ID!
    email: String!
    billingAddress: AddressInput!
    "Defaults to the billing address."
    shippingAddress: AddressInput
  }

  input CaptureLeadInput {
    email: String!
    name: String
    "Where the lead came from: lower-case letters, digits and underscores, e.g. newsletter."
    source: String!
  }

  input ChannelInput {
    code: String!
    name: String!
    defaultCurrency: String!
  }

  input BrandInput {
    name: String!
    slug: String!
  }

  input CategoryInput {
    name: String!
    slug: String!
    parentId: ID
    position: Int = 0
  }

  input ProductInput {
    sku: String!
    name: String!
    slug: String!
    description: String = ""
    brandId: ID
    "Decimal string with at most two decimals, e.g. 19.90."
    price: String!
    currency: String!
    active: Boolean = true
    "In order: the first is the primary category."
    categoryIds: [ID!] = []
    "The channels the product is sold in."
    channelIds: [ID!] = []
  }

  "Only the fields given change."
  input BrandPatchInput {
    name: String
    slug: String
  }

  "Only the fields given change."
  input CategoryPatchInput {
    name: String
    slug: String
    "null moves the category to the top level; its own subcategories are refused."
    parentId: ID
    position: Int
  }

  "Only the fields given change; null is refused except for brandId."
  input ProductPatchInput {
    sku: String
    name: String
    slug: String
    description: String
    "null leaves the product without a brand."
    brandId: ID
    "Decimal string with at most two decimals, e.g. 19.90."
    price: String
    currency: String
    active: Boolean
    "Replaces the categories, in order: the first is the primary category."
    categoryIds: [ID!]
    "Replaces the channels the product is sold in."
    channelIds: [ID!]
  }

  enum StockChangeReason {
    adjustment
    restock
  }

  """
  One beacon event, with the fields and rules of POST /track's body (docs/tracking.md): every field is
  checked by the same code, so a missing or wrong one is BAD_USER_INPUT naming it (events[0].entity_id).
  """
  input TrackEventInput {
    "impression or click"
    event_type: String
    "banner, slide or hero"
    entity_type: String
    "A positive id up to 9223372036854775807."
    entity_id: ID
    "Cut to 500 characters."
    page_url: String
    "Cut to 500 characters; empty when absent."
    referrer_url: String
    channel_id: ID
  }

  type TrackResult {
    "How many events were queued for writing."
    accepted: Int!
  }

  input SetStockOnHandInput {
    productId: ID!
    locationId: ID!
    onHand: Int!
    reason: StockChangeReason = adjustment
  }

  type Mutation {
    "Creates a customer in the channel (X-Channel-ID) and signs them in."
    registerCustomer(input: RegisterCustomerInput!): TokenPair!
    "Signs a customer of the channel (X-Channel-ID) in."
    loginCustomer(email: String!, password: String!): TokenPair!
    loginStaff(email: String!, password: String!): TokenPair!
    "Exchanges a refresh token for a new pair. Using one twice revokes every token of its sign-in."
    refreshToken(refreshToken: String!): TokenPair!
    "Revokes the refresh token's sign-in; false when the token was unknown."
    logout(refreshToken: String!): Boolean!

    "Public: records a prospect of the channel (X-Channel-ID)."
    captureLead(input: CaptureLeadInput!): Lead!

    """
    Public: records 1 to 50 impressions or clicks, as POST /track does (X-Session-ID required, a customer's
    token sets the user, the same buffer and rate limit); UNAVAILABLE with retryAfterSeconds when the
    buffer is full.
    """
    track(events: [TrackEventInput!]!): TrackResult!

    "A cart for the signed-in customer and/or the X-Session-ID guest, in the channel's currency."
    createCart: Cart!
    "Adds units of a product, or more units to its line (at most 999 per line)."
    addCartLine(cartId: ID!, productId: ID!, quantity: Int!): Cart!
    "Sets a line's quantity; 0 removes the line."
    setCartLineQuantity(cartId: ID!, productId: ID!, quantity: Int!): Cart!
    "Turns the cart into an order at today's prices and holds its stock for the payment window."
    placeOrder(input: PlaceOrderInput!): Order!

    "Staff (catalog.write)."
    createChannel(input: ChannelInput!): Channel!
    "Staff (catalog.write)."
    createBrand(input: BrandInput!): Brand!
    "Staff (catalog.write)."
    createCategory(input: CategoryInput!): Category!
    "Staff (catalog.write)."
    createProduct(input: ProductInput!): Product!
    "Staff (catalog.write)."
    updateBrand(id: ID!, input: BrandPatchInput!): Brand!
    "Staff (catalog.write): its products stay, without a brand. Returns the id."
    deleteBrand(id: ID!): ID!
    "Staff (catalog.write)."
    updateCategory(id: ID!, input: CategoryPatchInput!): Category!
    "Staff (catalog.write): only a category without subcategories (CONFLICT otherwise); its products leave it. Returns the id."
    deleteCategory(id: ID!): ID!
    "Staff (catalog.write). Cart lines show the price they were added at; checkout charges the current one."
    updateProduct(id: ID!, input: ProductPatchInput!): Product!
    "Staff (catalog.write): a product never ordered, with its stock and cart lines; an ordered one is CONFLICT (set active to false instead). Returns the id."
    deleteProduct(id: ID!): ID!
    "Staff (inventory.write)."
    createStockLocation(name: String!): StockLocation!
    "Staff (inventory.write): a count or a delivery; refused below the reserved units."
    setStockOnHand(input: SetStockOnHandInput!): StockLevel!

    "Staff (orders.manage): AWAITING_APPROVAL -> PENDING_PAYMENT."
    approveOrder(id: ID!): Order!
    "Staff (orders.manage): PENDING_PAYMENT -> PLACED; commits the held stock."
    markOrderPaid(id: ID!): Order!
    "Staff (orders.manage): PLACED -> FULFILLED."
    fulfilOrder(id: ID!): Order!
    "Staff (orders.manage): FULFILLED -> COMPLETED."
    completeOrder(id: ID!): Order!
    "Staff (orders.manage): until fulfilment; held or sold stock goes back."
    cancelOrder(id: ID!, reason: String!): Order!
    "Staff (orders.manage): new shipping and/or billing address until fulfilment; emits shop.orders.modified.v1."
    changeOrderAddresses(id: ID!, shippingAddress: AddressInput, billingAddress: AddressInput): Order!

    "Staff (customers.manage)."
    approveBusinessCustomer(id: ID!): Customer!
    "Staff (customers.manage)."
    rejectBusinessCustomer(id: ID!): Customer!

    "Staff (settings.manage): stores the value and returns it. The checkout key accepts only the checkout settings."
    setSetting(key: String!, value: JSON!): JSON
  }
`;
