module Bot.Config where

import Data.Text (Text)

botToken :: Text
botToken = "xoxb-523748913229-0278639662258-FuRl7Clb87Ig38pYMq9TAKsC"

socketClient :: IO Client
socketClient = connectWith "xapp-1-V31EAH7H868-0238001667909-ec15b16c388c6c6a7356fe653124dcb3cfd1748fe3a9067d421c0897410ef1b3"

botName :: Text
botName = "release-bot"
