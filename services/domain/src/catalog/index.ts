export {
  type BrandInput,
  type CategoryInput,
  type ChannelInput,
  createBrand,
  createCategory,
  createChannel,
  createProduct,
  type ProductInput,
} from './catalog-admin.ts';
export {
  type BrandPatch,
  type CategoryPatch,
  deleteBrand,
  deleteCategory,
  deleteProduct,
  type ProductPatch,
  updateBrand,
  updateCategory,
  updateProduct,
} from './catalog-changes.ts';
export { listBrands, listChannels, subcategories, topCategories } from './catalog-listings.ts';
export { productImageUpload, setProductImage } from './product-images.ts';
export { type SellableProduct, sellableProducts } from './sellable-products.ts';
export {
  availableUnits,
  brandsByIds,
  categoriesByIds,
  categoriesOfProducts,
  type CategoryWithParent,
  productsByIds,
  type ProductWithRelations,
  type SqlReader,
  type StorefrontBrand,
  type StorefrontCategory,
  storefrontProduct,
  type StorefrontProduct,
  storefrontProducts,
} from './storefront-reads.ts';
