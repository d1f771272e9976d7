// Warehouse: table names to folders, and the names that cannot be folders.
#include "pipeline/warehouse.h"

#include <gtest/gtest.h>

namespace cdclake::pipeline {
namespace {

TEST(WarehouseTest, NamesMapToFoldersByTheirParts) {
  Warehouse w("/data/lake/");
  EXPECT_EQ(*w.TableFolder("main.sales.orders"), "/data/lake/main/sales/orders");
  EXPECT_EQ(*w.TableFolder("sales.orders"), "/data/lake/sales/orders");
  EXPECT_EQ(*w.TableFolder("orders"), "/data/lake/default/orders");
  EXPECT_EQ(*w.TableFolder("LIVE.orders"), "/data/lake/default/orders");
  EXPECT_EQ(*w.TableFolder("live.sales.orders"), "/data/lake/sales/orders");
  EXPECT_EQ(EventLogFolder("/data/lake/"), "/data/lake/_event_log");
}

TEST(WarehouseTest, CanonicalNamesMakeBareAndDefaultNamesEqual) {
  Warehouse w("lake");
  EXPECT_EQ(*w.CanonicalName("orders"), "default.orders");
  EXPECT_EQ(*w.CanonicalName("default.orders"), "default.orders");
  EXPECT_EQ(*w.CanonicalName("LIVE.orders"), "default.orders");
  EXPECT_EQ(*w.CanonicalName("c.s.t"), "c.s.t");
}

TEST(WarehouseTest, NamesThatCannotBeFoldersAreRejected) {
  Warehouse w("lake");
  for (const char* bad : {"a.b.c.d", "a..b", "..", "a/b", "_delta_log", "s._t", "", "x\\y"}) {
    auto folder = w.TableFolder(bad);
    EXPECT_FALSE(folder.ok()) << bad << " gave " << (folder.ok() ? *folder : "");
    if (!folder.ok()) {
      EXPECT_EQ(folder.status().code(), StatusCode::kInvalidArgument) << bad;
    }
  }
  auto four = w.TableFolder("a.b.c.d");
  EXPECT_NE(four.status().message().find("more than three parts"), std::string::npos)
      << four.status().ToString();
}

}  // namespace
}  // namespace cdclake::pipeline
