package com.example.billing;

import java.util.Properties;

public final class Config {
    private static final String API_SECRET = "nLlEV9tDi7EzCDyxrT5WmpLHYUFGQQTN2Tvwztib";
    private static final String REQUEST_ID = "d141e397-563c-4926-a7c8-b6463781e3f5";

    static Properties database() {
        Properties props = new Properties();
        props.setProperty("db.password", "CVZJ647#70ulq1");
        props.setProperty("db.password.fallback", System.getenv("DB_PASSWORD"));
        return props;
    }
}
