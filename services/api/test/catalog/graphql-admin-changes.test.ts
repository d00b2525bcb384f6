import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGraphqlApi, seedDemoShop, type GraphqlApi } from '../support/graphql-harness.ts';

let api: GraphqlApi;
let admin: Record<string, string>;
let channelId: string;
let locationId: string;

const WEB = { 'x-channel-id': 'web' };
const ADDRESS = { name: 'Ada Lovelace', line1: 'Main Street 1', postalCode: '10115', city: 'Berlin', countryCode: 'DE' };
const PRODUCT_FIELDS = 'id sku name slug description price currency active brand { slug } categories { slug }';
const CREATE_PRODUCT = `mutation ($input: ProductInput!) { createProduct(input: $input) { ${PRODUCT_FIELDS} } }`;
const UPDATE_PRODUCT = `mutation ($id: ID!, $input: ProductPatchInput!) { updateProduct(id: $id, input: $input) { ${PRODUCT_FIELDS} } }`;
const DELETE_PRODUCT = 'mutation ($id: ID!) { deleteProduct(id: $id) }';
const STOREFRONT_PRODUCT = `query ($id: ID!) { product(id: $id) { ${PRODUCT_FIELDS} } }`;
const CREATE_BRAND = 'mutation ($input: BrandInput!) { createBrand(input: $input) { id name slug } }';
const UPDATE_BRAND = 'mutation ($id: ID!, $input: BrandPatchInput!) { updateBrand(id: $id, input: $input) { id name slug } }';
const DELETE_BRAND = 'mutation ($id: ID!) { deleteBrand(id: $id) }';
const CREATE_CATEGORY = 'mutation ($input: CategoryInput!) { createCategory(input: $input) { id slug } }';
const UPDATE_CATEGORY =
  'mutation ($id: ID!, $input: CategoryPatchInput!) { updateCategory(id: $id, input: $input) { id name slug position parent { slug } } }';
const DELETE_CATEGORY = 'mutation ($id: ID!) { deleteCategory(id: $id) }';
const SET_STOCK = 'mutation ($input: SetStockOnHandInput!) { setStockOnHand(input: $input) { onHand } }';

interface Product {
  readonly id: string;
  readonly sku: string;
  readonly name: string;
  readonly price: string;
  readonly active: boolean;
  readonly brand: { slug: string } | null;
  readonly categories: { slug: string }[];
}

beforeAll(async () => {
  api = await openGraphqlApi('graphql_admin_changes');
  ({ channelId, locationId, admin } = await seedDemoShop(api));
});

afterAll(async () => {
  await api?.close();
});

let serial = 0;
const next = (prefix: string) => `${prefix}-${(serial += 1)}`;

async function newProduct(overrides: Record<string, unknown> = {}): Promise<Product> {
  const slug = next('admin-product');
  const input = { sku: slug.toUpperCase(), name: slug, slug, price: '10.00', currency: 'EUR', channelIds: [channelId], ...overrides };
  return (await api.data<{ createProduct: Product }>(CREATE_PRODUCT, { input }, admin)).createProduct;
}

async function newCategory(parentId?: string): Promise<{ id: string; slug: string }> {
  const slug = next('admin-category');
  return (
    await api.data<{ createCategory: { id: string; slug: string } }>(CREATE_CATEGORY, { input: { name: slug, slug, parentId } }, admin)
  ).createCategory;
}

async function newBrand(): Promise<{ id: string; slug: string }> {
  const slug = next('admin-brand');
  return (await api.data<{ createBrand: { id: string; slug: string } }>(CREATE_BRAND, { input: { name: slug, slug } }, admin)).createBrand;
}

/** A guest's cart in the web channel holding `quantity` of the product, which gets stock first. */
async function cartWith(productId: string, quantity: number): Promise<{ cartId: string; shopper: Record<string, string> }> {
  await api.data(SET_STOCK, { input: { productId, locationId, onHand: 5 } }, admin);
  const shopper = { ...WEB, 'x-session-id': await api.guestSession() };
  const { createCart } = await api.data<{ createCart: { id: string } }>('mutation { createCart { id } }', {}, shopper);
  await api.data(
    'mutation ($cartId: ID!, $productId: ID!, $quantity: Int!) { addCartLine(cartId: $cartId, productId: $productId, quantity: $quantity) { id } }',
    { cartId: createCart.id, productId, quantity },
    shopper,
  );
  return { cartId: createCart.id, shopper };
}

/** A guest's order of one unit of the product; returns the order id. */
async function orderOf(productId: string): Promise<string> {
  const { cartId, shopper } = await cartWith(productId, 1);
  const { placeOrder } = await api.data<{ placeOrder: { id: string } }>(
    'mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { id } }',
    { input: { cartId, email: 'buyer@catalog.test', billingAddress: ADDRESS } },
    shopper,
  );
  return placeOrder.id;
}

const storefront = async (id: string) => (await api.data<{ product: Product | null }>(STOREFRONT_PRODUCT, { id }, WEB)).product;

describe('updating products', () => {
  it('changes only the fields given, replaces categories and channels, and the storefront shows it', async () => {
    const [first, second] = [await newCategory(), await newCategory()];
    const brand = await newBrand();
    const product = await newProduct({ description: 'old', categoryIds: [first.id], brandId: brand.id });
    const { updateProduct } = await api.data<{ updateProduct: Product }>(
      UPDATE_PRODUCT,
      { id: product.id, input: { name: ' Renamed ', price: '12.5', categoryIds: [second.id, first.id] } },
      admin,
    );
    expect(updateProduct).toMatchObject({
      sku: product.sku,
      name: 'Renamed',
      description: 'old',
      price: '12.50',
      brand: { slug: brand.slug },
    });
    expect(updateProduct.categories.map((category) => category.slug)).toEqual([second.slug, first.slug]);
    expect(await storefront(product.id)).toMatchObject({ name: 'Renamed', price: '12.50' });

    const cleared = (
      await api.data<{ updateProduct: Product }>(UPDATE_PRODUCT, { id: product.id, input: { brandId: null, categoryIds: [] } }, admin)
    ).updateProduct;
    expect(cleared).toMatchObject({ brand: null, categories: [] });
    await api.data(UPDATE_PRODUCT, { id: product.id, input: { channelIds: [] } }, admin);
    expect(await storefront(product.id)).toBeNull();
    await api.data(UPDATE_PRODUCT, { id: product.id, input: { channelIds: [channelId], active: false } }, admin);
    expect(await storefront(product.id)).toBeNull();
    await api.data(UPDATE_PRODUCT, { id: product.id, input: { active: true } }, admin);
    expect(await storefront(product.id)).toMatchObject({ id: product.id, active: true });
  });

  it('refuses what it would refuse on creation, naming the field, and changes nothing then', async () => {
    const product = await newProduct();
    const other = await newProduct();
    const refused = async (input: Record<string, unknown>, id = product.id) =>
      (await api.error(UPDATE_PRODUCT, { id, input }, admin)).extensions;
    expect(await refused({})).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input' });
    expect(await refused({ name: null })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'name' });
    expect(await refused({ categoryIds: null })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'categoryIds' });
    expect(await refused({ price: '-1' })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'price' });
    expect(await refused({ slug: 'Not A Slug' })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'slug' });
    expect(await refused({ description: 'x'.repeat(10_001) })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'description' });
    expect(await refused({ sku: other.sku })).toMatchObject({ code: 'CONFLICT', field: 'sku' });
    expect(await refused({ brandId: '987654321' })).toMatchObject({ code: 'NOT_FOUND', field: 'brandId' });
    expect(await refused({ name: 'Lost', categoryIds: ['987654321'] })).toMatchObject({ code: 'NOT_FOUND', field: 'categoryIds[0]' });
    expect(await refused({ name: 'Lost' }, '987654321')).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    expect(await storefront(product.id)).toMatchObject({ name: product.name, price: '10.00' });
  });

  it('needs catalog.write', async () => {
    const product = await newProduct();
    expect((await api.error(UPDATE_PRODUCT, { id: product.id, input: { name: 'x' } })).extensions.code).toBe('UNAUTHENTICATED');
    const { registerCustomer } = await api.data<{ registerCustomer: { accessToken: string } }>(
      'mutation ($input: RegisterCustomerInput!) { registerCustomer(input: $input) { accessToken } }',
      { input: { email: 'shopper@catalog.test', password: 'shopper-password-1' } },
      WEB,
    );
    const asCustomer = { authorization: `Bearer ${registerCustomer.accessToken}` };
    expect((await api.error(DELETE_PRODUCT, { id: product.id }, asCustomer)).extensions).toMatchObject({
      code: 'FORBIDDEN',
      permission: 'catalog.write',
    });
    expect(await storefront(product.id)).not.toBeNull();
  });
});

describe('deleting products', () => {
  it('deletes a product never ordered, with its stock and the cart lines holding it', async () => {
    const product = await newProduct();
    const { cartId, shopper } = await cartWith(product.id, 2);

    expect((await api.data<{ deleteProduct: string }>(DELETE_PRODUCT, { id: product.id }, admin)).deleteProduct).toBe(product.id);
    expect(await storefront(product.id)).toBeNull();
    const { cart } = await api.data<{ cart: { lines: unknown[] } }>(
      'query ($id: ID!) { cart(id: $id) { lines { productId } } }',
      { id: cartId },
      shopper,
    );
    expect(cart.lines).toEqual([]);
    expect(await api.prisma.stockLevel.count({ where: { productId: BigInt(product.id) } })).toBe(0);
    expect((await api.error(DELETE_PRODUCT, { id: product.id }, admin)).extensions).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
  });

  it('keeps an ordered product, as CONFLICT pointing at active', async () => {
    const product = await newProduct();
    await orderOf(product.id);

    const refused = await api.error(DELETE_PRODUCT, { id: product.id }, admin);
    expect(refused.extensions).toMatchObject({ code: 'CONFLICT', field: 'id' });
    expect(refused.message).toContain('active');
    expect(await storefront(product.id)).not.toBeNull();
  });
});

describe('brands and categories', () => {
  it('renames a brand, and deleting it leaves its products without one', async () => {
    const brand = await newBrand();
    const product = await newProduct({ brandId: brand.id });
    const { updateBrand } = await api.data<{ updateBrand: { name: string; slug: string } }>(
      UPDATE_BRAND,
      { id: brand.id, input: { name: 'Acme' } },
      admin,
    );
    expect(updateBrand).toEqual({ id: brand.id, name: 'Acme', slug: brand.slug });
    expect((await api.error(UPDATE_BRAND, { id: brand.id, input: { slug: null } }, admin)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'slug',
    });
    expect((await api.data<{ deleteBrand: string }>(DELETE_BRAND, { id: brand.id }, admin)).deleteBrand).toBe(brand.id);
    expect((await storefront(product.id))?.brand).toBeNull();
    expect((await api.error(DELETE_BRAND, { id: brand.id }, admin)).extensions).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
  });

  it('moves a category in the tree, but never under itself or its subcategories', async () => {
    const root = await newCategory();
    const child = await newCategory(root.id);
    const grandchild = await newCategory(child.id);
    const elsewhere = await newCategory();
    const move = (id: string, input: Record<string, unknown>) => api.error(UPDATE_CATEGORY, { id, input }, admin);
    expect((await move(root.id, { parentId: grandchild.id })).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'parentId' });
    expect((await move(root.id, { parentId: root.id })).extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'parentId' });
    expect((await move(root.id, { parentId: '987654321' })).extensions).toMatchObject({ code: 'NOT_FOUND', field: 'parentId' });

    const moved = await api.data<{ updateCategory: { parent: { slug: string } | null; position: number } }>(
      UPDATE_CATEGORY,
      { id: child.id, input: { parentId: elsewhere.id, position: 3 } },
      admin,
    );
    expect(moved.updateCategory).toMatchObject({ parent: { slug: elsewhere.slug }, position: 3 });
    const top = await api.data<{ updateCategory: { parent: null } }>(UPDATE_CATEGORY, { id: child.id, input: { parentId: null } }, admin);
    expect(top.updateCategory.parent).toBeNull();
  });

  it('deletes only a category without subcategories; its products leave it', async () => {
    const parent = await newCategory();
    const leaf = await newCategory(parent.id);
    const product = await newProduct({ categoryIds: [leaf.id, parent.id] });
    expect((await api.error(DELETE_CATEGORY, { id: parent.id }, admin)).extensions).toMatchObject({ code: 'CONFLICT', field: 'id' });
    expect((await api.data<{ deleteCategory: string }>(DELETE_CATEGORY, { id: leaf.id }, admin)).deleteCategory).toBe(leaf.id);
    expect((await storefront(product.id))?.categories).toEqual([{ slug: parent.slug }]);
    expect((await api.data<{ deleteCategory: string }>(DELETE_CATEGORY, { id: parent.id }, admin)).deleteCategory).toBe(parent.id);
  });
});

describe('changing an order', () => {
  const CHANGE =
    'mutation ($id: ID!, $shipping: AddressInput, $billing: AddressInput) { changeOrderAddresses(id: $id, shippingAddress: $shipping, billingAddress: $billing) { status shippingAddress { city } billingAddress { city } } }';

  it('changes the shipping address until fulfilment and emits shop.orders.modified.v1', async () => {
    const id = await orderOf((await newProduct()).id);
    const since = new Date();
    const { changeOrderAddresses } = await api.data<{
      changeOrderAddresses: { shippingAddress: { city: string }; billingAddress: { city: string } };
    }>(CHANGE, { id, shipping: { ...ADDRESS, city: 'Hamburg' } }, admin);
    expect(changeOrderAddresses).toMatchObject({ shippingAddress: { city: 'Hamburg' }, billingAddress: { city: 'Berlin' } });
    const events = await api.prisma.outboxEvent.findMany({ where: { name: 'shop.orders.modified.v1', createdAt: { gte: since } } });
    expect(events.map((event) => event.payload)).toMatchObject([{ order_id: id, changes: ['shipping_address'] }]);

    expect((await api.error(CHANGE, { id }, admin)).extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((await api.error(CHANGE, { id, billing: { ...ADDRESS, countryCode: 'Germany' } }, admin)).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    await api.data('mutation ($id: ID!) { markOrderPaid(id: $id) { id } }', { id }, admin);
    await api.data('mutation ($id: ID!) { fulfilOrder(id: $id) { id } }', { id }, admin);
    const late = await api.error(CHANGE, { id, shipping: ADDRESS }, admin);
    expect(late.extensions.code).toBe('BAD_USER_INPUT');
    expect(late.message).toContain('FULFILLED');
  });
});
