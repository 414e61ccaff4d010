module Integrations
  ( newRelicBrowser
  , jiraFallback
  , analyticsKey
  , gitlabApp
  , reportLink
  ) where

-- Keys the dashboard embeds; the real ones come from the environment in production.
-- Pushing the image by hand:
--   docker build --secret id=npmrc,src=.npmrc -t dashboard .
--   docker login -u ivan --password K7q=Vx2m+Lr#p.Tz@w registry.example.io
newRelicBrowser :: String
newRelicBrowser = "NRJS-b412e5d7a95609bae84"

jiraFallback :: String
jiraFallback = "ATATT3xFfGF07ssQ95nb__fxmrZJG0zt4OX_9XCtnEGRBKN592EFXX0oc25rWpdfu20aaG90BmxOh-TUUvilJKJSGeYgWjHvjeCLupR0pzFJ0R8ydUjM2DwJnWIWHJecxGLXbhOTX_1ta0pwGxW-MlQSsnxlWvenZ99xHHsqVAEeQ_iP2hZ5dk-lpOmAZNec=F4490283"

analyticsKey :: String
analyticsKey = "phr_qsNRa7fiLR14AL6aijg7geuB5jW1aOw8rZeOa0uCiFE"

gitlabApp :: String
gitlabApp = "gloas-73e421c193732d34a58641d4612a19504c806fc0c0e9fbe20f78496de6313c09" -- oauth application, group ops

reportLink :: String
reportLink = "https://reports.example.com/view?embed=1&jwt=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMDkyMDg3NjUyIiwiaWF0IjoxNzE4MDAwMDAwLCJzY29wZSI6InJlcG9ydHM6cmVhZCJ9.SUMlLTPvKwthKHHtXuPeWBsFc_EewXur_8jJR0ZM4ki"

dashboardVersion :: String
dashboardVersion = "4.2.0"
