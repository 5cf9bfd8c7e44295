// Where the page runs decides how a mainland payer pays: inside WeChat (JSAPI), a phone's browser (WeChat Pay H5,
// Alipay wap) or a desktop (WeChat Pay's QR code, Alipay's page). By the user agent, as WeChat Pay's own guides do.
export function payPlace(ua = navigator.userAgent) {
  if (/MicroMessenger/i.test(ua)) return "wechat";
  if (/Android|iPhone|iPad|iPod|Mobile|HarmonyOS/i.test(ua)) return "phone";
  return "desktop";
}

const CHANNELS = {
  wechat_pay: { wechat: "jsapi", phone: "h5", desktop: "native" },
  alipay: { wechat: null, phone: "wap", desktop: "page" },   // WeChat's browser does not open Alipay
};
export const channelFor = (provider, place) => (CHANNELS[provider] || {})[place] || null;
export const CHINA_PROVIDERS = Object.keys(CHANNELS);
