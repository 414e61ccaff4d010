package com.example.reports;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

public final class Database {
    private static final String URL = "jdbc:postgresql://reports-db.internal:5432/reports";

    static Connection open() throws SQLException {
        return DriverManager.getConnection(URL, "report_reader", "harbor-violet-falcon47");
    }

    static Connection openLegacy() throws SQLException {
        return DriverManager.getConnection("jdbc:mysql://legacy-db:3306/shop?user=shop&password=9SPJJfmcAKtvi1wL&useSSL=false");
    }

    static Connection openWithProperties(java.util.Properties props) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://reports-db.internal:5432/reports", props);
    }
}
