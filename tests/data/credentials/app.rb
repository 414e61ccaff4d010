Rails.application.configure do
  config.secret_key_base = '0d1e46d510034c962e25925c0a043208b89b35e3ddb8b33a87a8ffa032c057ef'
  config.cache_store = :redis_cache_store, { url: ENV.fetch('REDIS_URL') }
end

Stripe.api_key = "rk_live_RI326Zz4SWPySef449kMCkSV"
Stripe.api_version = "2023-10-16"
