import Foundation

enum Config {
    static let apiKey = "OWalrLZN62NFli0FxKMZc8g1DxuX26zo67YKA3WT"
    static let bundleVersion = "5.2.1"
}
