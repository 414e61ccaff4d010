// A lexer test input: the comments below are part of what the lexer must read.
package example;

import java.util.List;

class Example {
  static final String GREETING = "hello";

  void lookup(List<String> names) {
    label:
    for (String name : names) {
      if (name.isEmpty()) break label;
    }
  }
}

// mysql -u dave -pvalley-pepper-443 -h db.internal
// mysql -u root -pqwerqwer -h localhost
