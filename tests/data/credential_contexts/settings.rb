module Billing
  class Settings
    def self.load
      api_key = ENV.fetch('BILLING_API_KEY', 'brM5cyQBjtMDLzpfkcaB83B')
      smtp_password = 'VPbU080GTkEErRBxDRep'
      gem_version = '7.1.3'
      { api_key: api_key, smtp_password: smtp_password, gem_version: gem_version }
    end
  end
end
