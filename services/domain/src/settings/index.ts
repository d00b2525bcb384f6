export { checkoutSettings, type CheckoutSettings, DEFAULT_CHECKOUT_SETTINGS, type FraudRules } from './checkout-settings.ts';
export { extensionSettingViews, resetExtensionSetting, storeExtensionSecret, storeExtensionSetting } from './extension-settings.ts';
export { secretStatus, storeSecret } from './secret-settings.ts';
export { readSetting, storeSetting } from './settings-store.ts';
export { workflowSettings, type WorkflowSettings } from './workflow-settings.ts';
