using System.Data.SqlClient;
using System.Net.Http;

namespace Shop.Web
{
    public static class Startup
    {
        public static HttpClient Client()
        {
            var apiSecret = "vO5YdvK5evhlyoHu3yNpXKa";
            var client = new HttpClient();
            client.DefaultRequestHeaders.Add("X-Api-Key", "PNtmvop0sw9ejGT2DvaJ29y");
            client.DefaultRequestHeaders.Add("X-Secret", apiSecret);
            return client;
        }

        public static SqlConnection Database()
        {
            var conn = new SqlConnection("Server=sql01;Database=shop;User Id=shop;Password=GNDG134@r8lhvu;");
            return conn;
        }
    }
}
