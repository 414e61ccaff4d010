namespace Shop.Infrastructure
{
    public static class Settings
    {
        public const string Connection = "Data Source=sql01; Initial Catalog=Shop; User ID=shop; Password=WTAX341!jbx8fx;";
        public const string ClientSecret = "nl9BNhf2f7WJw1EliOlUFvBglVjtCWh6";
        public const string TenantId = "10f117a0-95dd-4a31-a31f-d9ffd7fc460e";
    }
}
